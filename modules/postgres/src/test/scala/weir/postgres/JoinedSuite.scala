package weir.postgres

import cats.syntax.all.*
import munit.CatsEffectSuite
import scala.concurrent.duration.*

/** psql's `\;` against psql 15 itself ([[TestPg]]): statements it puts together go as one query
  * (one implicit transaction without a file's own, so a failure takes back the ones before it in
  * that query), `ROW_COUNT` is the last one's, `-e` says them as psql does; what weir cannot follow
  * that way is refused at its line.
  */
class JoinedSuite extends CatsEffectSuite with TempPaths.Cleanup:
  import ApplyFixtures.*

  override def munitIOTimeout: Duration = 3.minutes

  private val goOn = ApplySettings.default
    .withStopAtError(false)
    .withVariables(Map("ECHO" -> "queries"))
    .fold(e => fail(e.getMessage), identity)

  test("statements put together by \\; go as one query, as psql 15 sends them") {
    val script =
      """CREATE TABLE j (a int);
        |INSERT INTO j VALUES (1) \; INSERT INTO j VALUES (2), (3);
        |\echo rows :ROW_COUNT
        |INSERT INTO j VALUES (4) \;
        |  SELECT 1/0;
        |\echo error :ERROR :SQLSTATE
        |INSERT INTO j VALUES (5);
        |""".stripMargin
    val rows = "SELECT string_agg(a::text, ',' ORDER BY a) FROM j"
    val flags = List("-e", "-v", "ON_ERROR_STOP=0")
    sideBySide("joined", script, goOn, flags, rows, _.withoutTransaction).map { seen =>
      assertEquals(seen.theirRows, Some("1,2,3,5"))
      assertEquals(seen.ourRows, seen.theirRows)
      assertEquals(seen.report.failed, 1L)
      // Line by line, without weir's own saying of the failure.
      val lines = seen.said.filterNot(_.contains("ON_ERROR_STOP")).flatMap(_.linesIterator)
      assertEquals(lines, seen.printed)
    }
  }

  test("what \\; cannot put together is refused at its line, nothing applied") {
    def refused(text: String) =
      for
        db <- TestPg.database("joined_refused")
        f <- file("CREATE TABLE r (a int);\n" + text)
        report <- apply(db, List(f))
        table <- scalar(db, "SELECT to_regclass('r')::text")
      yield
        assertEquals(table, None)
        report.outcome match
          case ApplyReport.Outcome.Failed(e) => e.getMessage
          case other                         => fail(s"expected a refusal, got $other")
    List(
      "BEGIN \\; INSERT INTO r VALUES (1);\n" -> "t.sql:2:1: BEGIN put together",
      "SELECT 1 \\; COPY r FROM stdin;\n1\n\\.\n" -> "t.sql:2:1: a COPY ... FROM STDIN put together",
      "SELECT 1 AS a \\; SELECT 2 AS b \\gset\n" -> "t.sql:2:1: a \\gset or \\gexec after statements"
    ).traverse_((text, expected) => refused(text).map(m => assert(m.contains(expected), m)))
  }
