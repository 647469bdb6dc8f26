package weir.postgres

import cats.effect.IO
import munit.CatsEffectSuite
import scala.concurrent.duration.*

/** psql's `ON_ERROR_STOP` off ([[ApplySettings.withStopAtError]]) in a file applied without a
  * transaction, against a real PostgreSQL ([[TestPg]]) and psql 15 itself: a failed statement is
  * said and gone past, the statements after it (in the same round trip too) are applied, a COPY
  * whose start or rows fail is gone past with its body, psql's error variables read the failure,
  * and the report counts it. A file in a transaction still stops at its first failure.
  */
class OnErrorStopOffSuite extends CatsEffectSuite with TempPaths.Cleanup:
  import ApplyFixtures.*

  override def munitIOTimeout: Duration = 3.minutes

  private val goOn = ApplySettings.default.withStopAtError(false)

  private def applied(db: PgTarget, text: String, transactional: Boolean = false) =
    file(text).map(f => if transactional then f else f.withoutTransaction).flatMap { f =>
      PgSession.open[IO](db).use { session =>
        SqlApplier
          .create[IO](session, goOn)
          .flatMap(_.start(List(f)).use(run => run.report.map((_, run.progress.echoed()))))
      }
    }

  /** `text` applied going on past failures on a database of its own (`name`): the report, what was
    * said, and the rows of its table `t`.
    */
  private def withRows(name: String, text: String) =
    for
      db <- TestPg.database(name)
      result <- applied(db, text)
      rows <- scalar(db, "SELECT string_agg(a::text, ',') FROM t")
    yield (result._1, result._2, rows)

  // What both psql and weir go past alike: failed statements (one among others on a line),
  // a COPY whose rows fail, a \gset with no row, a \gexec whose statement fails.
  private val script =
    """CREATE TABLE t(a int PRIMARY KEY);
      |INSERT INTO t VALUES (1);
      |INSERT INTO t VALUES (1);
      |\echo dup :ERROR :SQLSTATE :ROW_COUNT :LAST_ERROR_SQLSTATE :'LAST_ERROR_MESSAGE'
      |INSERT INTO t VALUES (2); INSERT INTO nope VALUES (1); INSERT INTO t VALUES (3);
      |\echo line :ERROR :SQLSTATE :ROW_COUNT :LAST_ERROR_SQLSTATE
      |COPY t FROM STDIN;
      |10
      |x
      |\.
      |\echo copy :ERROR :SQLSTATE :ROW_COUNT :LAST_ERROR_SQLSTATE
      |INSERT INTO t VALUES (4);
      |\echo fine :ERROR :SQLSTATE :ROW_COUNT :LAST_ERROR_SQLSTATE
      |SELECT a AS got FROM t WHERE a > 100 \gset
      |\echo gset :ERROR :SQLSTATE :ROW_COUNT :LAST_ERROR_SQLSTATE
      |SELECT format('INSERT INTO t VALUES (%s)', n) FROM (VALUES ('5'), ('x'), ('6')) v(n) \gexec
      |INSERT INTO t VALUES (7);
      |""".stripMargin

  test("failed statements are gone past as psql 15 goes past them with ON_ERROR_STOP off") {
    for
      ours <- TestPg.database("goon_weir")
      theirs <- TestPg.database("goon_psql")
      result <- applied(ours, script)
      printed <- TestPg.psql(theirs, script, "-v", "ON_ERROR_STOP=0")
      ourRows <- scalar(ours, "SELECT string_agg(a::text, ',' ORDER BY a) FROM t")
      theirRows <- scalar(theirs, "SELECT string_agg(a::text, ',' ORDER BY a) FROM t")
    yield
      val (report, echoed) = result
      assertEquals(report.outcome, ApplyReport.Outcome.Completed)
      assertEquals(theirRows, Some("1,2,3,4,5,6,7"))
      assertEquals(ourRows, theirRows)
      val (said, lines) = echoed.partition(_.contains("ON_ERROR_STOP off"))
      assertEquals(lines, printed)
      assertEquals(
        lines.head,
        "dup true 23505 0 23505 'duplicate key value violates unique constraint \"t_pkey\"'"
      )
      // The duplicate, the missing table, the COPY's row, the \gset, the generated INSERT.
      assertEquals(report.failed, 5L)
      assertEquals(said.size, 5, said.mkString("\n"))
      assert(said.head.startsWith("t.sql:3:1: ERROR 23505: duplicate key value"), said.head)
      assert(said(2).startsWith("t.sql:9:1: ERROR 22P02"), said(2))
      // 1 CREATE, 5 INSERTs, the \gexec's query and its two INSERTs that landed
      assertEquals(report.statements, 9L)
      assertEquals(report.copyRows, 0L)
  }

  test("a COPY that cannot start is gone past with its body (psql would read the body as SQL)") {
    val text =
      """CREATE TABLE t(a int);
        |COPY nope FROM STDIN;
        |1
        |2
        |\.
        |COPY t FROM STDIN;
        |3
        |\.
        |""".stripMargin
    withRows("goon_copy", text).map { (report, said, rows) =>
      assertEquals(report.outcome, ApplyReport.Outcome.Completed)
      assertEquals(rows, Some("3"))
      assertEquals((report.failed, report.statements, report.copyRows), (1L, 2L, 1L))
      assert(said.head.startsWith("t.sql:2:"), said.head)
      assert(said.head.contains("ERROR 42P01: relation \"nope\" does not exist"), said.head)
    }
  }

  test("a file in a transaction still stops at its first failure, with nothing of it applied") {
    for
      db <- TestPg.database("goon_tx")
      result <- applied(db, script, transactional = true)
      left <- scalar(db, "SELECT count(*) FROM pg_tables WHERE tablename = 't'")
    yield
      val (report, _) = result
      report.outcome match
        case ApplyReport.Outcome.Failed(e: ApplyError.StatementFailed) =>
          assertEquals(e.at.line, 3L)
        case other => fail(other.toString)
      assertEquals((report.failed, left), (0L, Some("0")))
  }

  test("a COPY whose bad row comes early in a body of many chunks is gone past, the rest unsent") {
    // 200 000 rows (about 1.3 MB, five chunks of 256 KB): the server's error for row 2 comes back
    // while the body is still being sent.
    val body = ("1\nx\n" + (3 to 200000).map(_.toString).mkString("\n")) + "\n\\.\n"
    val text = s"CREATE TABLE t(a int);\nCOPY t FROM STDIN;\n${body}INSERT INTO t VALUES (-1);\n"
    withRows("goon_chunks", text).map { (report, said, rows) =>
      assertEquals(report.outcome, ApplyReport.Outcome.Completed)
      assertEquals(rows, Some("-1"))
      assertEquals((report.failed, report.statements, report.copyRows), (1L, 2L, 0L))
      assert(said.head.startsWith("t.sql:4:1: ERROR 22P02"), said.head)
    }
  }
