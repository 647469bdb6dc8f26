package weir.postgres

import cats.effect.IO
import cats.syntax.all.*
import munit.CatsEffectSuite
import scala.concurrent.duration.*

/** [[SqlApplier.spread]] (`--parallel-copy`) against a real PostgreSQL ([[TestPg]]): a text COPY
  * body spread over several connections, what stays on one, and what cannot be spread.
  */
class ApplierSpreadSuite extends CatsEffectSuite with TempPaths.Cleanup:
  import ApplyFixtures.*

  override def munitIOTimeout: Duration = 3.minutes

  test(
    "spread over connections: a text COPY spreads, CSV stays on one, a bad row fails, a line longer than a chunk is refused, a last line without a break applies"
  ) {
    val body = (1 to 20000).map(i => s"$i\tname $i\n").mkString
    val csv = "id,name\n1,\"a\nb\"\n2,c\n"
    val settings = ApplySettings.default.withMaxChunk(4096).fold(e => fail(e.getMessage), identity)
    def spread(target: PgTarget, f: SqlFile) =
      PgSession.open[IO](target).use { session =>
        List.fill(2)(PgSession.open[IO](target)).sequence.use { more =>
          SqlApplier.spread[IO](session, settings, more.toVector).flatMap(_.run(List(f)))
        }
      }
    for
      db <- TestPg.database("parallel")
      f <- file(
        s"CREATE TABLE t (id int, name text);\nCOPY t FROM stdin;\n$body\\.\nCREATE TABLE c (id int, name text);\nCOPY c FROM stdin (FORMAT csv, HEADER);\n$csv\\.\n"
      )
      report <- spread(db, f.withoutTransaction)
      sum <- scalar(db, "SELECT count(*) || ':' || sum(id) FROM t")
      loaders <- scalar(db, "SELECT count(DISTINCT xmin::text) FROM t")
      csvRows <- scalar(db, "SELECT string_agg(name, '|' ORDER BY id) FROM c")
      bad <- file("CREATE TABLE b (id int);\nCOPY b FROM stdin;\n" + "1\n" * 3000 + "x\n\\.\n")
      failed <- spread(db, bad.withoutTransaction)
      long <- file("CREATE TABLE l (name text);\nCOPY l FROM stdin;\n" + "y" * 5000 + "\n\\.\n")
      tooLong <- spread(db, long.withoutTransaction)
      // The body's last line without a line break (no `\.` either) is a line, not a cut one.
      open <- file("CREATE TABLE e (id int);\nCOPY e FROM stdin;\n" + "7\n" * 3000 + "8")
      unbroken <- spread(db, open.withoutTransaction)
      eRows <- scalar(db, "SELECT count(*) || ':' || sum(id) FROM e")
      longLast <- file("CREATE TABLE m (name text);\nCOPY m FROM stdin;\n1\n" + "y" * 5000)
      longLastFailed <- spread(db, longLast.withoutTransaction)
    yield
      assertEquals(report.outcome, ApplyReport.Outcome.Completed)
      assertEquals(report.copyRows, 20002L)
      assertEquals(sum, Some(s"20000:${20000L * 20001 / 2}"))
      assert(loaders.exists(_.toInt >= 2), s"rows loaded by $loaders transactions")
      assertEquals(csvRows, Some("a\nb|c"))
      failed.outcome match
        case ApplyReport.Outcome.Failed(e: ApplyError.StatementFailed) =>
          assertEquals(e.server.sqlState, "22P02")
          assertEquals(e.statement.line, 2L)
        case other => fail(s"expected a failed COPY, got $other")
      tooLong.outcome match
        case ApplyReport.Outcome.Failed(e @ ApplyError.CopyLineTooLong(at, 4096)) =>
          assertEquals(at.line, 2L)
          assert(!e.getMessage.contains("--"), e.getMessage)
        case other => fail(s"expected a line too long to spread, got $other")
      assertEquals(unbroken.outcome, ApplyReport.Outcome.Completed)
      assertEquals(eRows, Some(s"3001:${7 * 3000 + 8}"))
      longLastFailed.outcome match
        case ApplyReport.Outcome.Failed(ApplyError.CopyLineTooLong(at, 4096)) =>
          assertEquals(at.line, 2L)
        case other => fail(s"expected a last line too long to spread, got $other")
  }
