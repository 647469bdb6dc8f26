package weir.postgres

import java.nio.file.Files
import munit.CatsEffectSuite
import scala.concurrent.duration.*

/** psql's `-a` (`ECHO` `all`) against psql 15 itself ([[TestPg]]): every line read is said as psql
  * prints it, before the statements it completes run (comments, psql's lines, lines of an `\if`
  * branch not taken, an included file's lines, a `\gexec`'s generated statements), and neither a
  * COPY body's lines nor empty lines are.
  */
class EchoAllSuite extends CatsEffectSuite with TempPaths.Cleanup:
  import ApplyFixtures.*

  override def munitIOTimeout: Duration = 3.minutes

  private val all =
    ApplySettings.default
      .withVariables(Map("ECHO" -> "all"))
      .fold(e => fail(e.getMessage), identity)

  test("-a says every line read, as psql 15 prints it") {
    val included = tempPaths.file("weir-echo-inc-", ".sql")
    Files.writeString(included, "-- the included file\nINSERT INTO c VALUES (3);\n")
    val script =
      s"""-- a comment
         |CREATE TABLE c (a int);
         |
         |\\set x 1
         |COPY c FROM stdin;
         |1
         |2
         |\\.
         |SELECT :x AS one; SELECT 2
         |  AS two;
         |\\if false
         |SELECT 3;
         |\\endif
         |   
         |\\echo said :x
         |SELECT 'SELECT 5' \\gexec
         |\\i $included
         |SELECT count(*) FROM c;""".stripMargin
    sideBySide(
      "echo_all",
      script,
      all,
      List("-a"),
      "SELECT string_agg(a::text, ',' ORDER BY a) FROM c"
    )
      .map { seen =>
        assertEquals(seen.report.outcome, ApplyReport.Outcome.Completed)
        assertEquals(seen.ourRows, Some("1,2,3"))
        assertEquals(seen.ourRows, seen.theirRows)
        assertEquals(seen.said, seen.printed)
        assertEquals(seen.said.size, 18, seen.said.mkString("\n"))
      }
  }

  test("without -a, or after \\set ECHO none, no line is said") {
    val script = "-- a comment\nSELECT 1;\n\\set ECHO none\nSELECT 2;\n"
    for
      db <- TestPg.database("echo_all_off")
      plain <- file(script).flatMap(said(db, _, ApplySettings.default))
      db2 <- TestPg.database("echo_all_none")
      off <- file(script).flatMap(said(db2, _, all))
    yield
      assertEquals(plain._2, Nil)
      assertEquals(off._2, List("-- a comment", "SELECT 1;", "\\set ECHO none"))
  }
