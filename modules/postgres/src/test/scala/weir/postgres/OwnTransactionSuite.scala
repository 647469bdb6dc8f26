package weir.postgres

import munit.CatsEffectSuite
import scala.concurrent.duration.*

/** A file's own transaction control in a file applied in one transaction ([[OwnTransaction]]),
  * against a real PostgreSQL ([[TestPg]]): its `BEGIN` and `COMMIT` are not sent, so a failure
  * after them still leaves nothing of the file (psql -1 leaves what its `COMMIT` committed); its
  * `ROLLBACK` is refused; without a transaction the file runs as written.
  */
class OwnTransactionSuite extends CatsEffectSuite with TempPaths.Cleanup:
  import ApplyFixtures.*

  override def munitIOTimeout: Duration = 3.minutes

  private val text =
    "CREATE TABLE own (x int);\nBEGIN;\nINSERT INTO own VALUES (1);\nCOMMIT;\nINSERT INTO own VALUES (2);\n"

  test("statements are classified by how they start") {
    val expected = List(
      "BEGIN" -> OwnTransaction.Kind.Skip,
      "begin isolation level serializable" -> OwnTransaction.Kind.Skip,
      "START  TRANSACTION READ ONLY" -> OwnTransaction.Kind.Skip,
      "COMMIT" -> OwnTransaction.Kind.Skip,
      "commit and chain" -> OwnTransaction.Kind.Skip,
      "END TRANSACTION" -> OwnTransaction.Kind.Skip,
      "ROLLBACK" -> OwnTransaction.Kind.Refuse,
      "abort" -> OwnTransaction.Kind.Refuse,
      "ROLLBACK WORK" -> OwnTransaction.Kind.Refuse,
      "ROLLBACK TO SAVEPOINT a" -> OwnTransaction.Kind.Send,
      "rollback transaction to a" -> OwnTransaction.Kind.Send,
      "ROLLBACK PREPARED 'x'" -> OwnTransaction.Kind.Send,
      "COMMIT PREPARED 'x'" -> OwnTransaction.Kind.Send,
      "SAVEPOINT a" -> OwnTransaction.Kind.Send,
      "ENDPOINT" -> OwnTransaction.Kind.Send,
      "CREATE FUNCTION f() RETURNS int BEGIN ATOMIC SELECT 1; END" -> OwnTransaction.Kind.Send
    )
    expected.foreach((sql, kind) => assertEquals(OwnTransaction.of(sql), kind, sql))
  }

  test("a failure after the file's own COMMIT leaves nothing of the file") {
    for
      db <- TestPg.database("own_commit_failed")
      f <- file(text + "INSERT INTO nope VALUES (3);\n")
      report <- apply(db, List(f))
      table <- scalar(db, "SELECT to_regclass('own')::text")
    yield
      report.outcome match
        case ApplyReport.Outcome.Failed(e: ApplyError.StatementFailed) =>
          assertEquals((e.statement.line, e.server.sqlState), (6L, "42P01"))
        case other => fail(s"expected a failed statement, got $other")
      assertEquals(table, None)
  }

  test("the file's own BEGIN and COMMIT are not sent, and said so; the file is applied whole") {
    for
      db <- TestPg.database("own_commit_ok")
      f <- file(text)
      report <- apply(db, List(f))
      rows <- scalar(db, "SELECT string_agg(x::text, ',' ORDER BY x) FROM own")
    yield
      assertEquals(report.outcome, ApplyReport.Outcome.Completed)
      assertEquals(report.files.map(_.statements), List(3L))
      assertEquals(
        report.warnings.map(_.takeWhile(_ != ':')) zip report.warnings.map(_.split(": ")(1)),
        List(
          "t.sql" -> "the file's own BEGIN was not sent",
          "t.sql" -> "the file's own COMMIT was not sent"
        )
      )
      assert(report.warnings.head.startsWith("t.sql:2:1: "), report.warnings)
      assertEquals(rows, Some("1,2"))
  }

  test("the file's own ROLLBACK is refused and nothing of the file is applied") {
    for
      db <- TestPg.database("own_rollback")
      f <- file("CREATE TABLE own (x int);\nROLLBACK;\nCREATE TABLE after (x int);\n")
      report <- apply(db, List(f))
      tables <- scalar(db, "SELECT count(*) FROM pg_tables WHERE tablename IN ('own', 'after')")
    yield
      report.outcome match
        case ApplyReport.Outcome.Failed(e: ApplyError.OwnRollback) =>
          assertEquals(e.at.line, 2L)
          assert(e.getMessage.contains("--no-transaction"), e.getMessage)
        case other => fail(s"expected the ROLLBACK refused, got $other")
      assertEquals(tables, Some("0"))
  }

  test("without a transaction the file runs as written: its COMMIT commits") {
    for
      db <- TestPg.database("own_notx")
      f <- file(text + "INSERT INTO nope VALUES (3);\n")
      report <- apply(db, List(f.withoutTransaction))
      rows <- scalar(db, "SELECT string_agg(x::text, ',' ORDER BY x) FROM own")
    yield
      assert(report.outcome.isInstanceOf[ApplyReport.Outcome.Failed], report.outcome)
      assertEquals(report.warnings, Nil)
      assertEquals(rows, Some("1,2"))
  }
