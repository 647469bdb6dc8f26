package weir.cli.applysql

import cats.effect.IO
import cats.syntax.all.*
import io.circe.parser.parse
import java.nio.file.{Files, Path}
import munit.CatsEffectSuite
import scala.concurrent.duration.*
import weir.postgres.{PgSession, PgTarget, TestPg}

/** `weir apply-sql` from its options to its exit code, against a real PostgreSQL ([[TestPg]]): bad
  * options name themselves (exit 2), files apply (0), a failing statement exits 1 with
  * file:line:column, no server exits 2; migrations apply once, in order, refuse a changed file,
  * list themselves in a dry run, and two concurrent runs apply each migration once.
  */
class ApplySqlSuite extends CatsEffectSuite with ApplySqlFixtures:

  override def munitIOTimeout: Duration = 3.minutes

  test("defaults: the libpq environment, a transaction per file, prefetch, pipelining") {
    val d = dir("a.sql" -> "SELECT 1;")
    val p = plan(d.resolve("a.sql").toString)
    assertEquals(p.target.show, "postgresql://me@db.example:6543/me")
    assert(p.settings.transactions)
    assertEquals(p.settings.prefetch.map(n => n: Int), Some(1))
    assertEquals(p.settings.pipeline: Int, 256)
    val q = plan(
      d.resolve("a.sql").toString,
      "--url",
      "postgresql://u:s3cret@h:5/db",
      "--prefetch",
      "off",
      "--no-transaction"
    )
    assertEquals(q.target.show, "postgresql://u:***@h:5/db")
    assertEquals((q.settings.prefetch, q.settings.transactions), (None, false))
    val r = plan(d.resolve("a.sql").toString, "--parallel-copy", "3")
    assertEquals((r.connections, r.settings.transactions), (3, false))
  }

  test(
    "psql's command line: -h -p -U -d over the environment, -f files first, -X -1 -v ON_ERROR_STOP=1"
  ) {
    val d = dir("a.sql" -> "SELECT 1;", "b.sql" -> "SELECT 2;")
    val (a, b) = (d.resolve("a.sql").toString, d.resolve("b.sql").toString)
    val p =
      plan(b, "-X", "-1", "-v", "ON_ERROR_STOP=1", "-h", "db2", "-U", "al", "-d", "shop", "-f", a)
    assertEquals(p.target.show, "postgresql://al@db2:6543/shop")
    assertEquals(p.input, ApplySqlPlan.Input.Files(List(Path.of(a), Path.of(b))))
    assert(p.settings.transactions)
    assertEquals(p.settings.variables, Map("ON_ERROR_STOP" -> "1"))
    assert(!p.quiet && p.live)
    val hushed = plan(a, "-q", "-b")
    assert(hushed.quiet && !hushed.live)
    // --migrations repeated: the directories together, in the order given.
    val other = tempPaths.directory("weir-cli-")
    plan("--migrations", d.toString, "--migrations", other.toString).input match
      case ApplySqlPlan.Input.Migrations(dirs, _, _) => assertEquals(dirs, List(d, other))
      case input                                     => fail(s"expected migrations, got $input")
    val vars = plan(a, "-v", "x=1", "--set", "y=a=b", "-v", "z=", "-v", "x")
    assertEquals(vars.settings.variables, Map("y" -> "a=b", "z" -> ""))
    assertEquals(plan(a, "-e").settings.variables, Map("ECHO" -> "queries"))
    assertEquals(plan("--migrations", d.toString, "-a").settings.variables, Map("ECHO" -> "all"))
    val uri = plan(a, "-d", "postgresql://u@h:7/db", "-p", "9")
    assertEquals(uri.target.show, "postgresql://u@h:7/db")
    val errors = List(
      List(a, "-v", "a-b=1") -> "-v variable a-b: not a name (letters, digits and _)",
      List(a, "-tA") -> "psql's -t: weir apply-sql prints no query results",
      List(a, "-o", "out.txt") -> "psql's -o: weir apply-sql prints no query results",
      List(a, "-v", "ON_ERROR_STOP=0") -> "goes with --no-transaction only",
      List(a, "-v", "ON_ERROR_STOP=off", "--no-transaction", "--parallel-copy", "2") ->
        "-v ON_ERROR_STOP=0 does not go with --parallel-copy",
      List(a, "--set", "AUTOCOMMIT=off") -> "-v variable AUTOCOMMIT: psql's AUTOCOMMIT changes",
      List(
        "--migrations",
        d.toString,
        "-v",
        "x=1"
      ) -> "-v NAME=VALUE does not go with --migrations",
      List(
        a,
        "--url",
        "postgresql://h/db",
        "-h",
        "x"
      ) -> "give --url or psql's -h, -p, -U, -d, not both",
      List(a, "-p", "notaport") -> "-h/-p/-U/-d: ",
      List("-f", d.resolve("nope.sql").toString) -> "no such file"
    )
    errors.foreach((args, message) =>
      assert(this.errors(args*).exists(_.contains(message)), s"$args: ${this.errors(args*)}")
    )
  }

  test("bad input names the option") {
    val d = dir("a.sql" -> "SELECT 1;")
    val a = d.resolve("a.sql").toString
    val archive = dir("toc.dat" -> "", "3338.dat.gz" -> "")
    val cases = List(
      Nil -> "FILE is missing",
      List(d.resolve("nope.sql").toString) -> "no such file",
      List(d.toString) -> "is a directory",
      List(
        archive.toString
      ) -> s"FILE $archive is a pg_dump archive in directory format (pg_dump -Fd), not SQL text: restore it with pg_restore -d DATABASE FILE",
      List(a, "--prefetch", "-1") -> "--prefetch: '-1' is not a number",
      List(a, "--pipeline", "0") -> "--pipeline must be a positive integer",
      List(
        a,
        "--url",
        "mysql://u:pw@h/db"
      ) -> "--url: 'mysql://u:***@h/db' is not a PostgreSQL URI",
      List(a, "--migrations", d.toString) -> "not both",
      List("--migrations", a) -> "--migrations: ",
      List(a, "--dry-run") -> "--dry-run goes with --migrations",
      List("--migrations", d.toString, "--no-transaction") -> "-- weir: no-transaction",
      List(a, "--format", "xml") -> "--format: 'xml'",
      List(a, "--parallel-copy", "0") -> "--parallel-copy must be a positive integer",
      List(
        "--migrations",
        d.toString,
        "--parallel-copy",
        "2"
      ) -> "--parallel-copy does not go with --migrations",
      List(a, "--runtime", "fast") -> "--runtime",
      List(a, "--status") -> "--status goes with --migrations",
      List("--migrations", d.toString, "--status", "--dry-run") -> "not both",
      List(
        "--migrations",
        d.toString,
        "--baseline",
        "1.x"
      ) -> "--baseline: the version '1.x' is not a number",
      List(
        "--migrations",
        d.toString,
        "--flyway-table",
        "a-b"
      ) -> "--flyway-table: 'a-b' is not a table name",
      List(
        "--migrations",
        d.toString,
        "--placeholder",
        "x"
      ) -> "--placeholder: 'x' is not NAME=VALUE",
      List("--migrations", d.toString, "--placeholder", "=1") -> "--placeholder: '=1'",
      List(a, "--placeholder", "x=1") -> "--placeholder goes with --migrations",
      List(a, "--no-placeholders") -> "--no-placeholders goes with --migrations",
      List(
        "--migrations",
        d.toString,
        "--placeholder",
        "x=1",
        "--no-placeholders"
      ) -> "give --placeholder or --no-placeholders, not both"
    )
    cases.foreach { (args, expected) =>
      val e = errors(args*)
      assert(e.exists(_.contains(expected)), s"${args.mkString(" ")}: $e")
      assert(!e.mkString.contains("pw@"), e.toString)
    }
  }

  test("files apply (exit 0); a failing statement exits 1 naming file:line:column") {
    val d = dir(
      "a.sql" -> "CREATE TABLE t (id int);\nCOPY t FROM stdin;\n1\n2\n\\.\n",
      "b.sql" -> "INSERT INTO t VALUES (3);\n\nINSERT INTO t VALUES (4, 5);\n"
    )
    for
      db <- TestPg.database("cli")
      okRun <- run(db, d.resolve("a.sql").toString)
      badRun <- run(db, d.resolve("b.sql").toString)
      rows <- scalar(db, "SELECT count(*) FROM t")
    yield
      assertEquals(okRun._1, 0)
      val json = parse(ApplySqlRender(weir.cli.common.Args.Format.Json, okRun._2)).toOption.get
      assertEquals(json.hcursor.get[Long]("copy_rows"), Right(2L))
      assertEquals(badRun._1, 1)
      val text = message(badRun._2)
      assert(text.contains("b.sql:3:"), text)
      assert(text.contains("42601"), text)
      assertEquals(rows, Some("2"))
  }

  test("the library's errors are shown in the command's words: --no-transaction, --parallel-copy") {
    val d = dir(
      "v.sql" -> "CREATE TABLE v (id int);\nVACUUM v;\n",
      "n.sql" -> "CREATE TABLE n (id int);\nSELECT 1/0;\n",
      "l.sql" -> ("CREATE TABLE l (name text);\nCOPY l FROM stdin;\n" + "y" * 300000 + "\n\\.\n")
    )
    for
      db <- TestPg.database("words")
      vacuum <- run(db, d.resolve("v.sql").toString)
      kept <- run(db, d.resolve("n.sql").toString, "--no-transaction")
      long <- run(db, d.resolve("l.sql").toString, "--parallel-copy", "2")
    yield
      assertEquals((vacuum._1, kept._1, long._1), (1, 1, 2))
      val tried = message(vacuum._2)
      assert(tried.contains("try: --no-transaction: this statement cannot run inside"), tried)
      val json = parse(ApplySqlRender(weir.cli.common.Args.Format.Json, vacuum._2)).toOption.get
      assertEquals(json.hcursor.get[String]("error").map(_ == tried), Right(true))
      val stay = message(kept._2)
      assert(stay.contains("before this one stay applied (--no-transaction)"), stay)
      // The CREATE that stays is counted, in its file's row and in the total.
      val summary = ApplySqlRender(weir.cli.common.Args.Format.Text, kept._2).linesIterator.toList
      val counted = summary.filter(_.matches(" +(\\S*n\\.sql \\(in part\\)|total) +1 statement .*"))
      assertEquals(counted.size, 2, summary.mkString("\n"))
      val keptJson = parse(ApplySqlRender(weir.cli.common.Args.Format.Json, kept._2)).toOption.get
      assertEquals(keptJson.hcursor.downField("partly").get[Long]("statements"), Right(1L))
      assert(
        message(long._2).contains(
          "l.sql:2:1: --parallel-copy: a COPY line longer than a chunk (256 KB) cannot be spread over connections; apply this file without --parallel-copy"
        ),
        message(long._2)
      )
  }

  test("an unreachable server exits 2 with a clear message and no password") {
    val port = TestPg.freePort()
    val d = dir("a.sql" -> "SELECT 1;")
    val target =
      PgTarget.parse(Some(s"postgresql://u:hunter2@127.0.0.1:$port/db"), Map.empty).toOption.get
    run(target, d.resolve("a.sql").toString).map { (code, report) =>
      assertEquals(code, 2)
      val text = message(report)
      assert(text.contains("cannot connect to postgresql://u:***@127.0.0.1"), text)
      assert(!text.contains("hunter2"), text)
    }
  }

  test("migrations: applied once in name order, recorded, a changed file refused, a dry run") {
    val d = dir(
      "001_table.sql" -> "CREATE TABLE m (id int);\n",
      "002_rows.sql" -> "INSERT INTO m VALUES (1);\n",
      "003_index.sql" -> "-- weir: no-transaction\nCREATE INDEX CONCURRENTLY m_id ON m (id);\n"
    )
    for
      db <- TestPg.database("migrations")
      firstRun <- run(db, "--migrations", d.toString)
      recorded <- scalar(
        db,
        "SELECT string_agg(name || ':' || length(sha256), ',' ORDER BY name) FROM weir.migrations"
      )
      againRun <- run(db, "--migrations", d.toString)
      _ <- IO.blocking(
        Files.writeString(d.resolve("004_more.sql"), "\\set v 2\nINSERT INTO m VALUES (:v);\n")
      )
      dryRun <- run(db, "--migrations", d.toString, "--dry-run")
      _ <- IO.blocking(Files.writeString(d.resolve("002_rows.sql"), "INSERT INTO m VALUES (9);\n"))
      changedRun <- run(db, "--migrations", d.toString)
      rows <- scalar(db, "SELECT string_agg(id::text, ',') FROM m")
    yield
      assertEquals(firstRun._1, 0)
      assertEquals(recorded, Some("001_table.sql:64,002_rows.sql:64,003_index.sql:64"))
      assertEquals(againRun._1, 0)
      againRun._2 match
        case ApplySqlReport.Applied(r, Some(3), _, _) => assertEquals(r.files, Nil)
        case other                                    => fail(s"expected nothing applied: $other")
      dryRun._2 match
        case ApplySqlReport.DryRun(_, pending, 3, _) =>
          assertEquals(pending.map(_.name), List("004_more.sql"))
          // As they would be sent: the file's own variables replaced.
          assertEquals(pending.flatMap(_.statements), List("INSERT INTO m VALUES (2)"))
        case other => fail(s"expected a dry run: $other")
      assertEquals(changedRun._1, 2)
      val refused = message(changedRun._2)
      assert(refused.contains("002_rows.sql was applied with SHA-256"), refused)
      assertEquals(rows, Some("1"))
  }

  test(
    "two concurrent migration runs apply each migration once: the second waits on the advisory lock while the first applies"
  ) {
    // The first migration blocks on a table the test holds locked, so the runs meet for certain:
    // the test lets it go only once the server shows one run waiting on that table and the other
    // on the migrations' advisory lock.
    val d = dir(
      "001_gated.sql" -> "CREATE TABLE c (id int);\nSELECT count(*) FROM gate;\n",
      "002_rows.sql" -> "INSERT INTO c VALUES (1);\n"
    )
    def waiting(db: PgTarget, locks: String) =
      scalar(db, s"SELECT count(*) FROM pg_locks l WHERE NOT l.granted AND $locks").map(
        _.contains("1")
      )
    for
      db <- TestPg.database("lock")
      _ <- PgSession.open[IO](db).use(_.update("CREATE TABLE gate (x int)"))
      met <- IO.ref(false)
      results <- PgSession.open[IO](db).use { gate =>
        val hold =
          gate.transaction(on = true) >> gate.update("LOCK TABLE gate IN ACCESS EXCLUSIVE MODE")
        val release = gate.rollback >> gate.transaction(on = false)
        val both = waiting(db, "l.relation = 'gate'::regclass")
          .map2(waiting(db, "l.locktype = 'advisory'"))(_ && _)
        val meet = (IO.sleep(20.millis) >> both).iterateUntil(identity) >> met.set(true)
        hold >> List
          .fill(2)(run(db, "--migrations", d.toString))
          .parSequence
          .both(meet.timeout(30.seconds).attempt.guarantee(release))
          .map(_._1)
      }
      seen <- met.get
      rows <- scalar(db, "SELECT count(*) FROM c")
      recorded <- scalar(db, "SELECT count(*) FROM weir.migrations")
    yield
      assert(
        seen,
        "the two runs were never seen waiting, one on the gate, one on the advisory lock"
      )
      assertEquals(results.map(_._1), List(0, 0))
      assertEquals(rows, Some("1"))
      assertEquals(recorded, Some("2"))
      val applied =
        results.map(_._2).collect { case ApplySqlReport.Applied(r, _, _, _) => r.files.size }
      assertEquals(applied.sorted, List(0, 2))
  }
