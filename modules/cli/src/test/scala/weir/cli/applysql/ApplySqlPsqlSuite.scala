package weir.cli.applysql

import cats.effect.IO
import munit.CatsEffectSuite
import scala.concurrent.duration.*
import weir.postgres.{PgSession, TestPg}

/** `weir apply-sql` in psql's place, against a real PostgreSQL ([[TestPg]]): `-c`, psql's
  * variables, `\\connect`, `-1` over several files, and what a migrations dry run lists of psql's
  * lines.
  */
class ApplySqlPsqlSuite extends CatsEffectSuite with ApplySqlFixtures:

  override def munitIOTimeout: Duration = 3.minutes

  test("psql's -c: in order, each in a transaction, CREATE DATABASE alone; not with FILEs") {
    val name = s"weir_cli_c_${ProcessHandle.current.pid}"
    for
      db <- TestPg.database("cli_c")
      created <- run(db, "-c", s"CREATE DATABASE $name")
      exists <- scalar(db, s"SELECT count(*) FROM pg_database WHERE datname = '$name'")
      applied <- run(
        db,
        "-c",
        "CREATE TABLE c (n int); INSERT INTO c VALUES (1)",
        "-c",
        "INSERT INTO c VALUES (2); INSERT INTO c VALUES ('x')"
      )
      rows <- scalar(db, "SELECT string_agg(n::text, ',' ORDER BY n) FROM c")
      _ <- PgSession.open[IO](db).use(_.update(s"DROP DATABASE $name"))
    yield
      assertEquals((created._1, exists), (0, Some("1")))
      assertEquals(applied._1, 1)
      assert(message(applied._2).startsWith("<command 2>:1:49: ERROR 22P02"), message(applied._2))
      assert(
        message(applied._2).contains("nothing of <command 2> was applied"),
        message(applied._2)
      )
      // The first command committed; the second, one transaction, left nothing.
      assertEquals(rows, Some("1"))
      val d = dir("a.sql" -> "SELECT 1;")
      assert(
        errors("-c", "SELECT 1", d.resolve("a.sql").toString)
          .exists(_.contains("give -c COMMAND or FILEs")),
        errors("-c", "SELECT 1", d.resolve("a.sql").toString)
      )
  }

  test("psql's variables: -v and \\set interpolate :x, :'x' and :\"x\"; \\unset; across files") {
    val d = dir(
      "a.sql" -> ("CREATE SCHEMA :\"schema\";\nCREATE TABLE :\"schema\".t (n int, who text, note text);\n" +
        "\\set n 4\n\\set tag :'who' ' 1\\n'\n" +
        "INSERT INTO :\"schema\".t VALUES (:n, :'who', ':who stays' || $$:n$$ || :'tag'); -- :n\n"),
      "b.sql" -> "\\unset n\nINSERT INTO :\"schema\".t VALUES (:n::int + 1, :'who', 'b');\n"
    )
    for
      db <- TestPg.database("cli_vars")
      applied <- run(
        db,
        "-v",
        "schema=My App",
        "-v",
        "who=O'Brien \\ co",
        "-v",
        "n=0",
        d.resolve("a.sql").toString
      )
      rows <- scalar(db, "SELECT string_agg(concat_ws('|', n, who, note), ';') FROM \"My App\".t")
      unset <- run(db, "-v", "schema=My App", "-v", "who=x", d.resolve("b.sql").toString)
    yield
      assertEquals(applied._1, 0, message(applied._2))
      // :'tag' quotes a value that holds a quoted value: E'' and doubled quotes, twice over.
      assertEquals(rows, Some("4|O'Brien \\ co|:who stays:n E'O''Brien \\\\ co' 1\n"))
      // :n unset: sent as written, so the server sees the colon and refuses it.
      assertEquals(unset._1, 1)
      assert(message(unset._2).contains("b.sql:2:"), message(unset._2))
  }

  test(
    "psql's \\connect: what follows runs on the database it names; refused in a transaction and in a migration"
  ) {
    val name = s"weir_cli_connect_${ProcessHandle.current.pid}"
    val d = dir(
      "init.sql" -> s"CREATE DATABASE $name;\n\\c $name\nCREATE TABLE moved (n int);\nINSERT INTO moved VALUES (1), (2);\n",
      "tx.sql" -> "SELECT 1;\n\\connect postgres\nSELECT 2;\n",
      "args.sql" -> "\\c postgres someone 127.0.0.1 5432\n"
    )
    for
      db <- TestPg.database("cli_connect")
      applied <- run(db, "--no-transaction", d.resolve("init.sql").toString)
      rows <- scalar(db.withDatabase(name), "SELECT string_agg(n::text, ',' ORDER BY n) FROM moved")
      here <- scalar(db, "SELECT count(*) FROM pg_tables WHERE tablename = 'moved'")
      // DROP DATABASE refuses a database another session is on (the server itself waits up to
      // 5 s for backends that are exiting): it succeeds only if the apply closed its \\c session.
      dropped <- PgSession.open[IO](db).use(_.update(s"DROP DATABASE $name")).attempt
      inTransaction <- run(db, d.resolve("tx.sql").toString)
      args <- run(db, "--no-transaction", d.resolve("args.sql").toString)
      migrations = dir("001_move.sql" -> "\\c postgres\nSELECT 1;\n")
      migration <- run(db, "--migrations", migrations.toString)
    yield
      assertEquals(applied._1, 0, message(applied._2))
      assertEquals((rows, here), (Some("1,2"), Some("0")))
      // The connection \\c opened was closed when the apply ended.
      assert(dropped.isRight, dropped.toString)
      assertEquals(inTransaction._1, 2)
      assert(
        message(inTransaction._2)
          .contains("tx.sql:2:1: \\connect postgres in a file applied in one transaction"),
        message(inTransaction._2)
      )
      assertEquals(args._1, 2)
      assert(message(args._2).contains("give a database name only"), message(args._2))
      assertEquals(migration._1, 2)
      assert(
        message(migration._2).contains("\\connect postgres in a migration"),
        message(migration._2)
      )
  }

  test(
    "psql's -1: all FILEs in one transaction; a failure in the last leaves nothing of the first"
  ) {
    val d = dir(
      "a.sql" -> "CREATE TABLE one_a (n int);\nINSERT INTO one_a VALUES (1);\n",
      "b.sql" -> "CREATE TABLE one_b (n int);\nINSERT INTO one_b VALUES ('x');\n",
      "c.sql" -> "INSERT INTO one_a VALUES (2);\n"
    )
    def at(name: String) = d.resolve(name).toString
    for
      db <- TestPg.database("cli_single")
      failed <- run(db, "-1", "-f", at("a.sql"), at("b.sql"))
      none <- scalar(db, "SELECT count(*) FROM pg_class WHERE relname IN ('one_a', 'one_b')")
      separate <- run(db, at("a.sql"), at("b.sql"))
      kept <- scalar(db, "SELECT count(*) FROM one_a")
      _ <- PgSession.open[IO](db).use(_.update("DROP TABLE one_a"))
      together <- run(db, "-1", at("a.sql"), at("c.sql"))
      rows <- scalar(db, "SELECT string_agg(n::text, ',' ORDER BY n) FROM one_a")
    yield
      assertEquals(failed._1, 1)
      val text = message(failed._2)
      assert(text.startsWith(s"${at("b.sql")}:2:27: ERROR 22P02"), text)
      assert(text.contains(s"nothing of ${at("a.sql")} + ${at("b.sql")} was applied"), text)
      assertEquals(none, Some("0"))
      // Without -1 each file has its own transaction: a.sql stays.
      assertEquals((separate._1, kept), (1, Some("1")))
      assertEquals((together._1, rows), (0, Some("1,2")))
      assert(
        errors("-1", "--no-transaction", at("a.sql"))
          .exists(_.contains("-1 (all FILEs in one transaction) does not go with")),
        errors("-1", "--no-transaction", at("a.sql"))
      )
      assert(
        errors("-1", at("a.sql"), "-")
          .exists(_.contains("-1 with standard input among several FILEs")),
        errors("-1", at("a.sql"), "-")
      )
  }

  test(
    "--dry-run lists a migration up to its \\gset or a line reading ROW_COUNT, notes a \\gexec, replaces :DBNAME"
  ) {
    val d = dir(
      "V1__gset.sql" -> "SELECT 1 AS one \\gset\n\\if :one\nCREATE TABLE never_listed(x int);\n\\endif\n",
      "V2__gexec.sql" -> "SELECT 'CREATE TABLE g(x int)' \\gexec\nCREATE TABLE in_:DBNAME(x int);\n",
      "V3__rows.sql" -> "CREATE TABLE r AS SELECT 7 AS x;\nINSERT INTO g VALUES (:ROW_COUNT + 1);\n"
    )
    for
      db <- TestPg.database("cli_dry_psql")
      dry <- run(db, "--migrations", d.toString, "--dry-run")
      done <- run(db, "--migrations", d.toString)
      tables <- scalar(
        db,
        s"SELECT string_agg(tablename, ',' ORDER BY tablename) FROM pg_tables WHERE schemaname = 'public'"
      )
      inserted <- scalar(db, "SELECT string_agg(x::text, ',') FROM g")
    yield
      assertEquals(dry._1, 0)
      dry._2 match
        case ApplySqlReport.DryRun(_, List(gset, gexec, rows), _, _) =>
          assertEquals(gset.statements, List("SELECT 1 AS one"))
          assertEquals(
            gset.notes,
            List(
              "the rest of the file is not listed: it depends on the row of the \\gset at V1__gset.sql:1, which a dry run does not read"
            )
          )
          assertEquals(
            gexec.statements,
            List("SELECT 'CREATE TABLE g(x int)'", s"CREATE TABLE in_${db.database}(x int)")
          )
          assertEquals(gexec.notes.size, 1)
          assertEquals(
            (rows.statements, rows.notes),
            (
              List("CREATE TABLE r AS SELECT 7 AS x"),
              List(
                "the rest of the file is not listed: it reads psql's ROW_COUNT, ERROR or SQLSTATE at V3__rows.sql:2, set by running the statement before it, which a dry run does not do"
              )
            )
          )
        case other => fail(s"expected a dry run of three migrations: $other")
      assertEquals(done._1, 0)
      assertEquals(tables, Some(s"g,in_${db.database},never_listed,r"))
      assertEquals(inserted, Some("2"))
  }

  test(
    "a pg_dumpall-shaped restore with -v ON_ERROR_STOP=0 --no-transaction: the existing role gone past, exit 1; refused without --no-transaction"
  ) {
    val name = s"weir cli all ${ProcessHandle.current.pid}"
    val script =
      s"""CREATE ROLE postgres;
         |ALTER ROLE postgres WITH SUPERUSER;
         |CREATE DATABASE "$name" WITH TEMPLATE = template0 ENCODING = 'UTF8';
         |\\encoding SQL_ASCII
         |\\connect -reuse-previous=on "dbname='$name'"
         |SET client_encoding = 'UTF8';
         |CREATE TABLE t (a int);
         |COPY t (a) FROM stdin;
         |1
         |2
         |\\.
         |""".stripMargin
    val d = dir("all.sql" -> script)
    val all = d.resolve("all.sql").toString
    for
      db <- TestPg.database("cli_all")
      refused <- IO(errors(all, "-v", "ON_ERROR_STOP=0"))
      applied <- run(db, "--no-transaction", "-v", "ON_ERROR_STOP=0", all)
      rows <- scalar(db.withDatabase(name), "SELECT string_agg(a::text, ',' ORDER BY a) FROM t")
      _ <- PgSession.open[IO](db).use(_.update("DROP DATABASE \"" + name + "\""))
    yield
      assert(refused.exists(_.contains("goes with --no-transaction only")), refused.toString)
      assertEquals(applied._1, 1)
      applied._2 match
        case ApplySqlReport.Applied(r, _, _, _) =>
          assertEquals((r.failed, r.statements, r.copyRows), (1L, 5L, 2L))
          assert(
            weir.cli.common.AppliedText(r, None, Nil).contains("1 failed statement gone past"),
            weir.cli.common.AppliedText(r, None, Nil)
          )
        case other => fail(other.toString)
      assertEquals(rows, Some("1,2"))
  }

  test(
    "a \\connect closes the connection weir started on, as psql's does: the file can drop its database"
  ) {
    for
      db <- TestPg.database("cli_drop_start")
      d = dir("drop.sql" -> s"\\c ${TestPg.admin.database}\nDROP DATABASE ${db.database};\n")
      applied <- run(db, "--no-transaction", d.resolve("drop.sql").toString)
      left <- scalar(
        TestPg.admin,
        s"SELECT count(*) FROM pg_database WHERE datname = '${db.database}'"
      )
    yield
      assertEquals(applied._1, 0, message(applied._2))
      assertEquals(left, Some("0"))
  }
