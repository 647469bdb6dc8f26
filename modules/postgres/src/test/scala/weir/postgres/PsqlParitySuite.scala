package weir.postgres

import cats.effect.IO
import java.nio.file.Files
import munit.CatsEffectSuite
import scala.concurrent.duration.*

/** psql's session in an applied file, against a real PostgreSQL ([[TestPg]]), psql 15 itself
  * running the same files and printing the same `\echo` lines: the variables a `\gset` statement's
  * one row sets (the lines after it wait for them; a result `\gset` cannot take fails the apply
  * there, with nothing of the file applied), psql's own for the connection (`DBNAME`...), which
  * follow a `\connect`, those set after each statement (`ROW_COUNT`...), and variables in the
  * arguments of `\i` and `\connect`.
  */
class PsqlParitySuite extends CatsEffectSuite with TempPaths.Cleanup:
  import ApplyFixtures.*

  override def munitIOTimeout: Duration = 3.minutes

  /** The report and the `\echo` lines of applying `text` (one file, in one transaction). */
  private def applied(
      db: PgTarget,
      text: String,
      settings: ApplySettings = ApplySettings.default,
      transactional: Boolean = true
  ): IO[(ApplyReport, List[String])] =
    file(text).map(f => if transactional then f else f.withoutTransaction).flatMap { f =>
      PgSession.open[IO](db).use { session =>
        SqlApplier
          .create[IO](session, settings)
          .flatMap(_.start(List(f)).use(run => run.report.map((_, run.progress.echoed()))))
      }
    }

  private def psql(db: PgTarget, text: String, flags: String*) = TestPg.psql(db, text, flags*)

  /** Applies `script` with weir and with psql 15, each on a database of its own (`name`): both
    * complete, print the same `lines` `\echo` lines and leave the same value of `rows` (a query of
    * one value), which is returned.
    */
  private def sameAsPsql(
      name: String,
      script: String,
      lines: Int,
      rows: String,
      settings: ApplySettings = ApplySettings.default,
      transactional: Boolean = true
  ): IO[Option[String]] =
    for
      ours <- TestPg.database(s"${name}_weir")
      theirs <- TestPg.database(s"${name}_psql")
      result <- applied(ours, script, settings, transactional)
      printed <- psql(theirs, script)
      ourRows <- scalar(ours, rows)
      theirRows <- scalar(theirs, rows)
    yield
      val (report, echoed) = result
      assertEquals(report.outcome, ApplyReport.Outcome.Completed)
      assertEquals(printed.size, lines, printed.mkString("\n"))
      assertEquals(echoed, printed)
      assertEquals(ourRows, theirRows)
      ourRows

  test("the variables a \\gset sets, and the lines that read them, are psql's") {
    val included = tempPaths.file("weir-gset-inc-", ".sql")
    Files.writeString(included, "SELECT 'from the include' AS inc \\gset\n")
    val script =
      s"""CREATE TABLE customer(id int);
         |INSERT INTO customer VALUES (123);
         |SELECT EXISTS(SELECT 1 FROM customer WHERE id = 123) AS is_customer,
         |       EXISTS(SELECT 1 FROM customer WHERE id = 456) AS is_employee,
         |       'it''s "q"' AS quoted, NULL AS gone
         |\\gset
         |\\echo customer :is_customer employee :is_employee quoted :quoted gone :gone
         |\\if :is_customer
         |  SELECT count(*) AS n FROM customer \\gset row_
         |  \\echo rows :row_n
         |\\else
         |  \\echo never
         |\\endif
         |\\set gone here
         |SELECT NULL AS gone, 1 AS "Mixed" \\gset
         |\\echo gone :gone mixed :Mixed
         |SELECT 1 AS one; SELECT 2 AS two \\gset
         |\\echo two :two one :one
         |INSERT INTO customer VALUES (:row_n + 1) \\g
         |SELECT max(id) - 1 AS top, :'quoted' AS again FROM customer \\gset
         |\\echo top :top again :again
         |\\i $included
         |\\echo inc :inc
         |""".stripMargin
    sameAsPsql("gset", script, 6, "SELECT string_agg(id::text, ',' ORDER BY id) FROM customer")
      .map(rows => assertEquals(rows, Some("2,123")))
  }

  test("no rows, two rows or a column without a variable's name: the apply fails there") {
    def failure(text: String) =
      TestPg.database("gset_bad").flatMap { db =>
        applied(db, s"CREATE TABLE before(x int);\n$text\nCREATE TABLE after(x int);\n").flatMap {
          (report, _) =>
            scalar(db, "SELECT count(*) FROM pg_tables WHERE tablename IN ('before', 'after')")
              .map { tables =>
                assertEquals(tables, Some("0"), "nothing of the file stays applied")
                report.outcome match
                  case ApplyReport.Outcome.Failed(e: ApplyError.GsetFailed) => e.getMessage
                  case other => fail(s"expected a \\gset failure, got $other")
              }
        }
      }
    for
      none <- failure("SELECT 1 AS a WHERE false \\gset")
      two <- failure("SELECT 1 AS a FROM generate_series(1, 2)\n\\gset")
      unnamed <- failure("SELECT 1, 2 AS b \\gset")
    yield
      assert(none.startsWith("t.sql:2:1: \\gset: no rows returned"), none)
      assert(two.startsWith("t.sql:2:1: \\gset: more than one row returned"), two)
      assert(unnamed.startsWith("t.sql:2:1: \\gset: invalid variable name: \"?column?\""), unnamed)
      assert(none.endsWith("nothing of t.sql was applied: its transaction was rolled back"), none)
  }

  test("a column named after psql's own setting is not set, with a warning, as psql ignores it") {
    for
      db <- TestPg.database("gset_setting")
      result <- applied(db, "SELECT 'off' AS \"AUTOCOMMIT\", 1 AS b \\gset\n\\echo :b\n")
    yield
      val (report, echoed) = result
      assertEquals(report.outcome, ApplyReport.Outcome.Completed)
      assertEquals(echoed, List("1"))
      assertEquals(
        report.warnings,
        List(
          "t.sql:1:1: \\gset: column AUTOCOMMIT not set: psql's own setting, which psql ignores in a \\gset too"
        )
      )
  }

  test("psql's own variables for the connection are psql's, over -v's, and follow \\connect") {
    val script =
      """\echo :DBNAME :USER :HOST :PORT :ENCODING :SERVER_VERSION_NUM
        |\echo :SERVER_VERSION_NAME
        |SELECT current_database() = :'DBNAME' AS same, :SERVER_VERSION_NUM / 10000 AS major \gset
        |\echo :same :major
        |\c template1
        |\echo :DBNAME :USER
        |""".stripMargin
    val mine = ApplySettings.default.withVariables(Map("DBNAME" -> "mine", "PORT" -> "1"))
    for
      db <- TestPg.database("psql_own")
      settings <- IO.fromEither(mine)
      result <- applied(db, script, settings, transactional = false)
      printed <- psql(db, script, "-v", "DBNAME=mine", "-v", "PORT=1")
    yield
      val (report, echoed) = result
      assertEquals(report.outcome, ApplyReport.Outcome.Completed)
      assertEquals(printed.size, 4, printed.mkString("\n"))
      assertEquals(echoed, printed)
      assert(printed.head.startsWith(s"${db.database} ${db.user} ${db.host} ${db.port} UTF8 1"))
      assertEquals(printed(3), s"template1 ${db.user}")
  }

  test("variables in \\i and \\connect lines are read as psql reads them") {
    val dir = tempPaths.directory("weir inc ")
    Files.writeString(dir.resolve("a.sql"), "\\echo in a\n")
    Files.writeString(dir.resolve("b.sql"), "\\echo in b :DBNAME\n")
    val script =
      s"""\\set dir '$dir'
         |\\set b b.sql
         |\\set db template1
         |\\i :dir/a.sql
         |\\c :db
         |\\ir :dir/:b
         |""".stripMargin
    val quoted = s"\\set f '$dir/a.sql'\n\\i :'f'\n"
    for
      db <- TestPg.database("psql_args")
      result <- applied(db, script, transactional = false)
      printed <- psql(db, script)
      refused <- applied(db, quoted)
    yield
      assertEquals(result._1.outcome, ApplyReport.Outcome.Completed)
      assertEquals(printed, List("in a", "in b template1"))
      assertEquals(result._2, printed)
      // :'f' is a quoted literal: psql, too, looks for a file whose name has the quotes.
      refused._1.outcome match
        case ApplyReport.Outcome.Failed(e: SplitError.IncludeFailed) =>
          assert(e.getMessage.contains(s"\\i '$dir/a.sql': no such file"), e.getMessage)
        case other => fail(s"expected the include to fail, got $other")
  }

  test("\\gexec runs each value of its result as a statement, as psql does") {
    val script =
      """SELECT format('CREATE TABLE %I (n int)', 't' || g) FROM generate_series(1, 3) g \gexec
        |SELECT 'INSERT INTO t1 VALUES (1)', NULL, 'INSERT INTO t2 VALUES (2)'
        |UNION ALL SELECT 'INSERT INTO t3 VALUES (3)', 'INSERT INTO t3 VALUES (4)', NULL \gexec
        |SELECT 'CREATE DATABASE ' || quote_ident(:'newdb')
        | WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = :'newdb')\gexec
        |SELECT count(*) AS dbs FROM pg_database WHERE datname = :'newdb' \gset
        |\echo dbs :dbs
        |""".stripMargin
    val rows = "SELECT (SELECT string_agg(n::text, ',') FROM t1) || '/' || " +
      "(SELECT string_agg(n::text, ',') FROM t2) || '/' || " +
      "(SELECT string_agg(n::text, ',' ORDER BY n) FROM t3)"
    def named(db: PgTarget) = IO.fromEither(
      ApplySettings.default.withVariables(Map("newdb" -> s"${db.database}_new"))
    )
    for
      ours <- TestPg.database("gexec_weir")
      theirs <- TestPg.database("gexec_psql")
      settings <- named(ours)
      result <- applied(ours, script, settings, transactional = false)
      printed <- psql(theirs, script, "-v", s"newdb=${theirs.database}_new")
      ourRows <- scalar(ours, rows)
      theirRows <- scalar(theirs, rows)
      // The database exists now: the second apply's \gexec runs nothing.
      again <- applied(ours, script.linesIterator.drop(3).mkString("\n"), settings, false)
      failedOne <- applied(ours, "SELECT 'SELECT 1', 'SELECT nosuch' \\gexec\n")
      // In the file's transaction a generated COMMIT is the file's own: not sent, as written.
      own <- applied(ours, "CREATE TABLE own(x int);\nSELECT 'COMMIT' \\gexec\nSELECT nosuch;\n")
      ownTable <- scalar(ours, "SELECT to_regclass('own')::text")
      rolledBack <- applied(ours, "SELECT 'ROLLBACK' \\gexec\n")
      inTransaction <- applied(ours, "SELECT 'CREATE DATABASE x' || 1 \\gexec\n")
    yield
      assertEquals(result._1.outcome, ApplyReport.Outcome.Completed)
      assertEquals(printed, List("dbs 1"))
      assertEquals(result._2, printed)
      assertEquals(ourRows, Some("1/2/3,4"))
      assertEquals(ourRows, theirRows)
      assertEquals(again._1.outcome, ApplyReport.Outcome.Completed)
      assertEquals(again._2, List("dbs 1"))
      failedOne._1.outcome match
        case ApplyReport.Outcome.Failed(e: ApplyError.StatementFailed) =>
          assertEquals(e.statement, SqlPosition("t.sql", 1, 1))
          assertEquals(e.firstLine, "\\gexec: SELECT nosuch")
          assertEquals(e.server.sqlState, "42703")
        case other => fail(s"expected the generated statement to fail, got $other")
      assert(own._1.warnings.exists(_.contains("the file's own COMMIT was not sent")), own._1)
      assertEquals(ownTable, None)
      rolledBack._1.outcome match
        case ApplyReport.Outcome.Failed(e: ApplyError.OwnRollback) =>
          assertEquals(e.firstLine, "\\gexec: ROLLBACK")
        case other => fail(s"expected a generated ROLLBACK refused, got $other")
      inTransaction._1.outcome match
        case ApplyReport.Outcome.Failed(e: ApplyError.StatementFailed) =>
          assert(e.withoutTransactionHelps, e.getMessage)
        case other => fail(s"expected CREATE DATABASE to fail in a transaction, got $other")
  }

  test("a file's own COMMIT that \\gset or \\gexec ends keeps the file one transaction") {
    val table = "SELECT to_regclass('mine')::text"
    for
      db <- TestPg.database("own_ended")
      gset <- applied(db, "CREATE TABLE mine(x int);\nCOMMIT \\gset\n")
      afterGset <- scalar(db, table)
      gexec <- applied(db, "CREATE TABLE mine(x int);\nCOMMIT \\gexec\nSELECT nosuch;\n")
      afterGexec <- scalar(db, table)
      // The \\gexec's query and the one generated statement sent: the BEGIN not sent is not counted.
      counted <- applied(db, "SELECT 'BEGIN', 'SELECT 1' \\gexec\n")
    yield
      assertEquals((counted._1.outcome, counted._1.statements), (ApplyReport.Outcome.Completed, 2L))
      gset._1.outcome match
        case ApplyReport.Outcome.Failed(e: ApplyError.GsetFailed) =>
          assert(e.getMessage.contains("t.sql:2:1: \\gset: no rows returned: a file's own COMMIT"))
          assert(e.getMessage.contains("nothing of t.sql was applied"), e.getMessage)
        case other => fail(s"expected the \\gset to fail, got $other")
      assert(gexec._1.warnings.exists(_.contains("the file's own COMMIT was not sent")), gexec._1)
      assertEquals((afterGset, afterGexec), (None, None))
  }

  test(
    "ROW_COUNT, ERROR and SQLSTATE after each statement are psql's; the lines reading them wait"
  ) {
    // Plain statements only: a chunk of them passes without being read (PsqlScript.passes).
    val plain = tempPaths.file("weir-rows-inc-", ".sql")
    Files.writeString(plain, "INSERT INTO r VALUES (10), (11), (12), (13);\n")
    val script =
      s"""\\echo start :ERROR :SQLSTATE :ROW_COUNT :LAST_ERROR_SQLSTATE :LAST_ERROR_MESSAGE.
         |CREATE TABLE r (i int);
         |\\echo create :ERROR :SQLSTATE :ROW_COUNT
         |INSERT INTO r SELECT generate_series(1, 5);
         |\\echo insert :ROW_COUNT
         |SELECT * FROM r;
         |\\echo select :ROW_COUNT
         |UPDATE r SET i = i WHERE i < 3; SELECT 1 FROM r WHERE false;
         |\\echo two :ROW_COUNT
         |UPDATE r SET i = i WHERE i < 4;
         |\\set three :ROW_COUNT
         |SELECT 'x' || :ROW_COUNT AS v \\gset
         |\\echo v :v three :three after :ROW_COUNT
         |COPY r FROM stdin;
         |7
         |8
         |\\.
         |\\if :{?ROW_COUNT}
         |  \\echo copy :ROW_COUNT
         |\\endif
         |INSERT INTO r VALUES (:ROW_COUNT);
         |SELECT $$$$SELECT 1$$$$ FROM generate_series(1, 3) \\gexec
         |\\echo gexec :ROW_COUNT
         |\\i $plain
         |\\echo include :ROW_COUNT
         |SELECT 1 AS a UNION SELECT 2;
         |\\echo quoted :'ROW_COUNT' :"SQLSTATE"
         |""".stripMargin
    val rows = "SELECT string_agg(i::text, ',' ORDER BY i) FROM r"
    val prefetch = ApplySettings.default.withPrefetch(Some(weir.stream.Prefetch.Depth(4)))
    sameAsPsql("rows", script, 10, rows) >>
      sameAsPsql("rows_each", script, 10, rows, prefetch, transactional = false)
  }

  test("a value put in by :NAME is read as SQL, as psql reads it: its ; ends a statement there") {
    val script =
      """CREATE TABLE v (i int);
        |\set one 'INSERT INTO v VALUES (1)'
        |\set both ':one; INSERT INTO v VALUES (2), (3)'
        |:both;
        |\echo both :ROW_COUNT
        |SELECT :'both' AS text \gset
        |\echo text :text
        |\set q 'SELECT 1 AS a; SELECT 2 AS b'
        |:q \gset
        |\echo b :b a :a
        |SELECT :{?one} AS has_one, :{?nope} AS has_nope, ':{?one}' AS text \gset
        |\echo :has_one :has_nope :text
        |""".stripMargin
    sameAsPsql("relex", script, 4, "SELECT string_agg(i::text, ',' ORDER BY i) FROM v")
      .map(rows => assertEquals(rows, Some("1,2,3")))
  }

  test(
    "ECHO queries (psql -e) says each statement as psql says it, \\gexec's too; ECHO none stops"
  ) {
    val script =
      """-- a leading comment
        |CREATE TABLE e (i int);   -- after it
        |INSERT INTO e
        |  VALUES (1), -- inside
        |         (2);
        |\set v 5
        |SELECT :v AS five \gset
        |SELECT 1; SELECT 2;
        |COPY e FROM stdin;
        |3
        |\.
        |\echo between
        |SELECT $$INSERT INTO e VALUES (7)$$ \gexec
        |\set ECHO none
        |SELECT 8;
        |\set ECHO queries
        |SELECT 9;
        |""".stripMargin
    val echo = ApplySettings.default.withVariables(Map("ECHO" -> "queries"))
    for
      settings <- IO.fromEither(echo)
      ours <- TestPg.database("echo_weir")
      theirs <- TestPg.database("echo_psql")
      result <- applied(ours, script, settings)
      printed <- psql(theirs, script, "-e")
    yield
      assertEquals(result._1.outcome, ApplyReport.Outcome.Completed)
      // Line by line; psql keeps the space before a \gset, weir says the statement without it.
      assertEquals(result._2.flatMap(_.linesIterator), printed.map(_.stripTrailing))
      assertEquals(printed.size, 12, printed.mkString("\n"))
  }

  test("\\getenv sets a variable from the environment as psql 15 does; one not set leaves it") {
    // PATH is set wherever the tests run, and holds colons, which stay as they are.
    val script =
      """\getenv path PATH
        |\set kept before
        |\getenv kept WEIR_NOT_SET_ANYWHERE_42
        |\getenv absent WEIR_NOT_SET_ANYWHERE_42
        |\echo :path
        |\echo :kept :{?absent}
        |CREATE TABLE p AS SELECT :'path'::text AS v;
        |""".stripMargin
    sameAsPsql("getenv", script, 2, "SELECT v FROM p").map { v =>
      assertEquals(v, sys.env.get("PATH"))
    }
  }
