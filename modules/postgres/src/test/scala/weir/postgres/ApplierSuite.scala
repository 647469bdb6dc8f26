package weir.postgres

import cats.effect.IO
import cats.syntax.all.*
import munit.CatsEffectSuite
import scala.concurrent.duration.*

/** [[SqlApplier]] against a real PostgreSQL ([[TestPg]]): statements and COPY bodies land, failures
  * name file:line:column with the server's message, a file's transaction leaves nothing behind, a
  * file without one keeps what ran, and an interrupt cancels the statement on the server.
  */
class ApplierSuite extends CatsEffectSuite with TempPaths.Cleanup:
  import ApplyFixtures.*

  override def munitIOTimeout: Duration = 3.minutes

  private val smile = new String(Character.toChars(0x1f600)) // one character, two UTF-16 units

  test("statements and a COPY body are applied; the report counts them") {
    val body = (1 to 5000).map(i => s"$i\tname $i;'\\N\n").mkString
    for
      db <- TestPg.database("basic")
      f <- file(
        s"""CREATE TABLE t (id int PRIMARY KEY, name text);
           |COPY t (id, name) FROM stdin;
           |$body\\.
           |INSERT INTO t VALUES (0, E'it\\'s; fine');
           |CREATE FUNCTION f() RETURNS int LANGUAGE sql AS $$$$ SELECT count(*)::int FROM t; $$$$;
           |SELECT f();
           |""".stripMargin
      )
      report <- apply(
        db,
        List(f),
        ApplySettings.default.withMaxChunk(4096).fold(e => fail(e.getMessage), identity)
      )
      count <- scalar(db, "SELECT f()")
      zero <- scalar(db, "SELECT name FROM t WHERE id = 0")
    yield
      assertEquals(report.outcome, ApplyReport.Outcome.Completed)
      assertEquals(count, Some("5001"))
      assertEquals(zero, Some("it's; fine"))
      assertEquals((report.statements, report.copyRows, report.bytes), (5L, 5000L, f.size))
  }

  test("a failing statement names file:line:column, SQLSTATE, message; the file is rolled back") {
    val inserts = (1 to 999).map(i => s"INSERT INTO t VALUES ($i);").mkString("\n")
    for
      db <- TestPg.database("fail")
      f <- file(
        s"CREATE TABLE t (id int);\n$inserts\nINSERT INTO t VALUES (1000);\n  INSERT INTO t VALUES ('x', nosuch);\n"
      )
      report <- apply(db, List(f))
      exists <- scalar(db, "SELECT to_regclass('t')::text")
    yield
      report.outcome match
        case ApplyReport.Outcome.Failed(e: ApplyError.StatementFailed) =>
          assertEquals(e.statement, SqlPosition("t.sql", 1002, 3))
          assertEquals(e.server.sqlState, "42703")
          assertEquals(e.at, SqlPosition("t.sql", 1002, 30))
          assert(
            e.getMessage.startsWith("t.sql:1002:30: ERROR 42703: column \"nosuch\" does not exist"),
            e.getMessage
          )
          assert(e.getMessage.contains("INSERT INTO t VALUES ('x', nosuch)"), e.getMessage)
          assert(e.getMessage.contains("nothing of t.sql was applied"), e.getMessage)
        case other => fail(s"expected a failed statement, got $other")
      assertEquals(exists, None)
  }

  test("statements that return rows count: the failure in their round trip names its own line") {
    // pg_dump writes `SELECT pg_catalog.set_config(...)` among its first statements; they go in
    // one round trip with those after them.
    val cases = List(
      "SELECT 1;\nSELECT 2;\nSELEC 3;\n" -> (3L, "42601"),
      "SELECT pg_catalog.set_config('search_path', '', false);\nCREATE TABLE public.t (id int);\nSELECT 1/0;\n" -> (
        3L,
        "22012"
      ),
      "CREATE TABLE t (id int);\nSELECT 2;\nINSERT INTO t VALUES (1) RETURNING id;\nVALUES (1);\nSHOW work_mem;\nSELEC 6;\n" -> (
        6L,
        "42601"
      )
    )
    cases.zipWithIndex.traverse_ { case ((text, (line, state)), i) =>
      for
        db <- TestPg.database(s"rows$i")
        f <- file(text)
        report <- apply(db, List(f))
      yield report.outcome match
        case ApplyReport.Outcome.Failed(e: ApplyError.StatementFailed) =>
          assertEquals((e.statement.line, e.server.sqlState), (line, state), text)
        case other => fail(s"expected a failed statement, got $other")
    }
  }

  test("a SELECT runs to its end: its functions run for every row, as psql runs them") {
    val text =
      "CREATE SEQUENCE IF NOT EXISTS s;\nSELECT nextval('s') FROM generate_series(1, 10);\nSELECT nextval('s') FROM generate_series(1, 5);\n"
    for
      db <- TestPg.database("select_rows")
      f <- file(text)
      inTransaction <- apply(db, List(f))
      afterOne <- scalar(db, "SELECT last_value FROM s")
      _ <- scalar(db, "SELECT setval('s', 1, false)")
      alone <- apply(db, List(f.withoutTransaction))
      afterBoth <- scalar(db, "SELECT last_value FROM s")
    yield
      assertEquals(inTransaction.outcome, ApplyReport.Outcome.Completed)
      assertEquals(alone.outcome, ApplyReport.Outcome.Completed)
      assertEquals((afterOne, afterBoth), (Some("15"), Some("15")))
  }

  test("after a failure, nothing of its round trip runs, not even after a ROLLBACK in the file") {
    for
      db <- TestPg.database("control")
      f <- file("SELECT 1;\nSELECT 1/0;\nROLLBACK;\nCREATE TABLE after_failure (id int);\n")
      report <- apply(db, List(f))
      exists <- scalar(db, "SELECT to_regclass('after_failure')::text")
    yield
      report.outcome match
        case ApplyReport.Outcome.Failed(e: ApplyError.StatementFailed) =>
          assertEquals((e.statement.line, e.server.sqlState), (2L, "22012"))
        case other => fail(s"expected a failed statement, got $other")
      assertEquals(exists, None)
  }

  test("a file without a transaction keeps the statements before the failure, and counts them") {
    for
      db <- TestPg.database("notx")
      f <- file(
        "CREATE TABLE t (id int);\nINSERT INTO t VALUES (1);\nINSERT INTO t VALUES (1/0);\n"
      )
      report <- apply(db, List(f.withoutTransaction))
      rows <- scalar(db, "SELECT count(*) FROM t")
    yield
      report.outcome match
        case ApplyReport.Outcome.Failed(e: ApplyError.StatementFailed) =>
          assertEquals(e.server.sqlState, "22012")
          assert(!e.transactional && !e.withoutTransactionHelps)
          assert(e.getMessage.contains("statements of t.sql before this one stay applied"))
        case other => fail(s"expected a failed statement, got $other")
      assertEquals(rows, Some("1"))
      // The two statements before the failure (50 bytes, to the second's `;`), as the server kept them.
      assertEquals(
        report.partly.map(p => (p.name, p.statements, p.bytes)),
        Some(("t.sql", 2L, 50L))
      )
      assertEquals(report.statements, 2L)
  }

  test("a statement that cannot run in a transaction suggests applying its file without one") {
    for
      db <- TestPg.database("vacuum")
      f <- file("CREATE TABLE t (id int);\nVACUUM t;\n")
      report <- apply(db, List(f))
      again <- apply(db, List(f.withoutTransaction))
    yield
      report.outcome match
        case ApplyReport.Outcome.Failed(e: ApplyError.StatementFailed) =>
          assert(e.withoutTransactionHelps)
          assert(e.getMessage.contains("try: SqlFile.withoutTransaction: "), e.getMessage)
          assert(e.describe("--no-transaction").contains("try: --no-transaction: "))
          assert(!e.getMessage.contains("--"), e.getMessage)
        case other => fail(s"expected a failed statement, got $other")
      assertEquals(again.outcome, ApplyReport.Outcome.Completed)
  }

  test("a bad COPY row names its line in the file") {
    for
      db <- TestPg.database("copy")
      f <- file("CREATE TABLE t (id int);\n\nCOPY t FROM stdin;\n1\n2\nthree\n4\n\\.\n")
      report <- apply(db, List(f))
    yield report.outcome match
      case ApplyReport.Outcome.Failed(e: ApplyError.StatementFailed) =>
        assertEquals(e.server.sqlState, "22P02")
        assertEquals(e.at.line, 6L)
        assertEquals(e.statement.line, 3L)
      case other => fail(s"expected a failed COPY, got $other")
  }

  test(
    "an interrupt cancels the running statement on the server and rolls back; without a transaction what ran stays, and the outcome says so"
  ) {
    // The sleeps the server is running (no other test sleeps 600 s; the two runs go in turn).
    val sleeping = scalar(
      TestPg.admin,
      "SELECT count(*) FROM pg_stat_activity WHERE query LIKE '%SELECT pg_sleep(600)%' AND state = 'active' AND pid <> pg_backend_pid()"
    )
    // Interrupted once the server shows the sleep running, not after a guessed delay (the
    // statements of a round trip go as one text: the sleep is in it, after the CREATE).
    def interrupted(name: String, transactional: Boolean) =
      for
        db <- TestPg.database(name)
        f <- file("CREATE TABLE t (id int);\nSELECT pg_sleep(600);\n")
        report <- apply(
          db,
          List(if transactional then f else f.withoutTransaction),
          interrupt = (IO.sleep(20.millis) >> sleeping).iterateUntil(_.contains("1")).void
        )
        exists <- scalar(db, "SELECT to_regclass('t')::text")
        left <- sleeping
      yield (report.outcome, exists, left, report.partly.map(p => (p.statements, p.bytes)))
    for
      inOne <- interrupted("cancel", transactional = true)
      without <- interrupted("cancel_autocommit", transactional = false)
    yield
      assertEquals(inOne, (ApplyReport.Outcome.Interrupted(Some("t.sql")), None, Some("0"), None))
      // The CREATE stays, and is counted: its 24 bytes, to its `;`.
      assertEquals(
        without,
        (
          ApplyReport.Outcome.Interrupted(Some("t.sql"), rolledBack = false),
          Some("t"),
          Some("0"),
          Some((1L, 24L))
        )
      )
  }

  test("a stop of the run during a COPY cancels it on the server and rolls the file back") {
    // The COPY waits for a lock another session holds: it is running on the server, for sure,
    // when the run is stopped (the server shows it waiting), and cannot end on its own meanwhile.
    val waiting =
      "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'COPY held FROM stdin%' AND state = 'active' AND wait_event_type = 'Lock'"
    for
      db <- TestPg.database("stopcopy")
      _ <- PgSession.open[IO](db).use(_.update("CREATE TABLE held (id int)"))
      f <- file("CREATE TABLE made (id int);\nCOPY held FROM stdin;\n1\n2\n\\.\n")
      outcome <- PgSession.open[IO](db).use { locker =>
        locker.transaction(true) >> locker.update("LOCK TABLE held IN ACCESS EXCLUSIVE MODE") >>
          PgSession.open[IO](db).use { session =>
            SqlApplier.create[IO](session, ApplySettings.default).flatMap {
              _.start(List(f)).use { applying =>
                (IO.sleep(20.millis) >> scalar(db, waiting)).iterateUntil(_.contains("1")) >>
                  applying.run.stop >> (applying.report, applying.run.outcome).tupled
              }
            }
          } <* locker.rollback
      }
      (report, run) = outcome
      made <- scalar(db, "SELECT to_regclass('made')::text")
      rows <- scalar(db, "SELECT count(*) FROM held")
      copying <- scalar(
        TestPg.admin,
        "SELECT count(*) FROM pg_stat_activity WHERE query LIKE 'COPY held FROM stdin%' AND state = 'active'"
      )
    yield
      assertEquals(report.outcome, ApplyReport.Outcome.Interrupted(Some("t.sql")))
      assertEquals(run, weir.engine.RunOutcome.Stopped(cutOff = true))
      assertEquals(report.files, Nil)
      assertEquals(made, None)
      assertEquals(rows, Some("0"))
      assertEquals(copying, Some("0"))
  }

  test("several files: each in its own transaction; a failure keeps the files before it") {
    for
      db <- TestPg.database("files")
      a <- file("CREATE TABLE a (id int);\n", "a.sql")
      b <- file("CREATE TABLE b (id int);\nSELECT nosuch;\n", "b.sql")
      report <- apply(db, List(a, b))
      tables <- scalar(
        db,
        "SELECT string_agg(relname, ',') FROM pg_class WHERE relname IN ('a','b')"
      )
    yield
      assertEquals(report.files.map(_.name), List("a.sql"))
      assertEquals(tables, Some("a"))
  }

  test("an unreachable server and a wrong password are clear connection failures") {
    val port = TestPg.freePort()
    val dead =
      PgTarget.parse(Some(s"postgresql://u:secret@127.0.0.1:$port/db"), Map.empty).toOption.get
    for
      refused <- PgSession.open[IO](dead).use_.attempt
      _ = refused match
        case Left(e: ApplyError.ConnectFailed) =>
          assert(e.getMessage.contains("refused"), e.getMessage)
          assert(!e.getMessage.contains("secret"), e.getMessage)
        case other => fail(s"expected a connection failure, got $other")
      _ <- IO(assume(TestPg.ownServer, "the password test needs the server these tests start"))
      wrong = TestPg.admin
        .withDatabase("postgres")
        .withUser(TestPg.passwordUser)
        .withPassword(Some("wrong-password"))
      denied <- PgSession.open[IO](wrong).use_.attempt
    yield denied match
      case Left(e: ApplyError.ConnectFailed) =>
        assert(e.getMessage.contains("password authentication failed"), e.getMessage)
        assert(!e.getMessage.contains("wrong-password"), e.getMessage)
      case other => fail(s"expected a connection failure, got $other")
  }

  test("\\echo lines are said in order, none past a failure") {
    def echoes(db: PgTarget, f: SqlFile) =
      PgSession.open[IO](db).use { session =>
        SqlApplier.create[IO](session, ApplySettings.default).flatMap { applier =>
          applier.start(List(f)).use { run =>
            run.reportStoppingOn(IO.never).map(r => (r, run.progress.echoed()))
          }
        }
      }
    for
      db <- TestPg.database("echo")
      f <- file(
        "CREATE TABLE e (n int);\n\\echo 'start:' one\nINSERT INTO e VALUES (1);\n\\qecho -n two\n" +
          "SELECT 1/0;\n\\warn never\n"
      )
      result <- echoes(db, f)
    yield
      val (report, said) = result
      assert(report.outcome.isInstanceOf[ApplyReport.Outcome.Failed], report.outcome.toString)
      assertEquals(said, List("start: one", "two"))
  }

  test("positions inside a statement map to the file's line and column") {
    val s: SqlPiece.Statement =
      SqlPiece.Statement("SELECT 1,\n  nosuch", SqlPosition("f", 10, 5), Mark(0, 0), false)
    assertEquals(SqlApplier.locate(s, 1), SqlPosition("f", 10, 5))
    assertEquals(SqlApplier.locate(s, 8), SqlPosition("f", 10, 12))
    assertEquals(SqlApplier.locate(s, 13), SqlPosition("f", 11, 3))
    // The server counts characters, not UTF-16 units: an emoji is one.
    val wide: SqlPiece.Statement =
      SqlPiece.Statement(
        s"SELECT '$smile',\n '$smile', nosuch",
        SqlPosition("f", 1, 1),
        Mark(0, 0),
        false
      )
    assertEquals(SqlApplier.locate(wide, 9), SqlPosition("f", 1, 9))
    assertEquals(SqlApplier.locate(wide, 19), SqlPosition("f", 2, 7))
    assertEquals(SqlApplier.locate(wide, 99), SqlPosition("f", 2, 13))
  }

  test("in a round trip after wide characters, a failure keeps its statement, line and column") {
    for
      db <- TestPg.database("wide")
      f <- file(s"SELECT '$smile$smile';\nSELECT '$smile', nosuch;\n")
      report <- apply(db, List(f))
    yield report.outcome match
      case ApplyReport.Outcome.Failed(e: ApplyError.StatementFailed) =>
        assertEquals((e.statement, e.at), (SqlPosition("t.sql", 2, 1), SqlPosition("t.sql", 2, 13)))
      case other => fail(s"expected a failed statement, got $other")
  }

  test("a session is named as its opener says, plain weir by default") {
    for
      db <- TestPg.database("appname")
      named <- PgSession.open[IO](db).use(_.query("SHOW application_name"))
      mine <- PgSession.open[IO](db, "weir test").use(_.query("SHOW application_name"))
    yield
      assertEquals(named, Vector(Vector(Some("weir"))))
      assertEquals(mine, Vector(Vector(Some("weir test"))))
  }
