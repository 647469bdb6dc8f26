package weir.postgres

import munit.CatsEffectSuite
import scala.concurrent.duration.*

/** The server's notices and warnings (`RAISE NOTICE`), said with the `\echo` lines at the statement
  * that raised them, as psql prints them: from statements in a round trip or one at a time, a COPY
  * (its rows' triggers), the query of a `\gset` or `\gexec`, and a COPY that fails and is gone
  * past.
  */
class NoticesSuite extends CatsEffectSuite with TempPaths.Cleanup:
  import ApplyFixtures.*

  override def munitIOTimeout: Duration = 3.minutes

  test("the server's notices are said at their statements, in a round trip and without one") {
    val text =
      "CREATE TABLE n (a int);\nDO $$ BEGIN RAISE NOTICE 'moved % rows', 5; END $$;\n" +
        "INSERT INTO n VALUES (1);\nDO $$ BEGIN RAISE WARNING 'careful'; END $$;\n" +
        "DROP TABLE IF EXISTS nothing_here;\n"
    for
      db <- TestPg.database("notices")
      grouped <- file(text).flatMap(said(db, _))
      db2 <- TestPg.database("notices_each")
      each <- file(text).map(_.withoutTransaction).flatMap(said(db2, _))
    yield
      val expected = List(
        "t.sql:2:1: NOTICE: moved 5 rows",
        "t.sql:4:1: WARNING: careful",
        "t.sql:5:1: NOTICE: table \"nothing_here\" does not exist, skipping"
      )
      assertEquals(grouped._1.outcome, ApplyReport.Outcome.Completed)
      assertEquals(grouped._2, expected)
      assertEquals(each._2, expected)
  }

  // A table whose rows say themselves as they land, and a function that says it was called.
  private val noisy =
    """CREATE TABLE loud (a int);
      |CREATE FUNCTION say() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE NOTICE 'row %', NEW.a; RETURN NEW; END $$;
      |CREATE TRIGGER loud BEFORE INSERT ON loud FOR EACH ROW EXECUTE FUNCTION say();
      |CREATE FUNCTION hello(n int) RETURNS int LANGUAGE plpgsql AS $$ BEGIN RAISE NOTICE 'hello %', n; RETURN n; END $$;
      |""".stripMargin

  test("a COPY's notices, and those of a \\gset's or \\gexec's own query, are said at it") {
    for
      db <- TestPg.database("notices_copy")
      f <- file(
        noisy +
          "COPY loud FROM stdin;\n1\n2\n\\.\n" + // lines 5-8
          "SELECT hello(3) AS x \\gset\n" + // 9
          "SELECT 'SELECT hello(' || hello(4) || ')' \\gexec\n" + // 10
          "SELECT :x;\n"
      )
      result <- said(db, f)
    yield
      assertEquals(result._1.outcome, ApplyReport.Outcome.Completed)
      assertEquals(
        result._2,
        List(
          "t.sql:5:1: NOTICE: row 1",
          "t.sql:5:1: NOTICE: row 2",
          "t.sql:9:1: NOTICE: hello 3",
          "t.sql:10:1: NOTICE: hello 4",
          "t.sql:10:1: NOTICE: hello 4"
        )
      )
  }

  test("a COPY that fails and is gone past says the notices its rows raised before the failure") {
    for
      db <- TestPg.database("notices_copy_fails")
      f <- file(noisy + "COPY loud FROM stdin;\n1\nnot a number\n3\n\\.\nSELECT hello(5);\n")
      result <- said(db, f.withoutTransaction, ApplySettings.default.withStopAtError(false))
    yield
      assertEquals(result._1.failed, 1L)
      val (notices, rest) = result._2.partition(_.contains("NOTICE"))
      assertEquals(notices, List("t.sql:5:1: NOTICE: row 1", "t.sql:10:1: NOTICE: hello 5"))
      assert(rest.exists(_.contains("not a number")), rest)
  }
