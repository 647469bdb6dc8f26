package weir.postgres.queue

import cats.effect.IO
import munit.CatsEffectSuite
import scala.concurrent.duration.*
import weir.postgres.{ApplyReport, Migrations, PgSession, TestPg}

/** Migration 0007 (and those after it) on a database that has run 0001–0006 with jobs and a
  * schedule in it: the rows keep their meaning (kind `default`, no timeout, unique only while
  * unfinished), and the old named calls of `weir.enqueue` still work. Counted in the database.
  */
class Upgrade0007Suite extends CatsEffectSuite:
  import QueueDbs.*

  override def munitIOTimeout: Duration = 2.minutes

  test("an existing database upgrades: its jobs and schedules stay as they were") {
    val before = Migrations.Source.Classpath(QueueSchema.resourceDir, QueueSchema.files.take(6))
    for
      db <- TestPg.database("upgrade")
      old <- PgSession.open[IO](db).use(Migrations.migrate[IO](_, before))
      _ <- sql(db)(c =>
        Jdbc.prepared(
          c,
          """SELECT weir.enqueue('q', 'old', kind => 'k', unique_key => 'u');
            |INSERT INTO weir.schedules (name, payload, every_ms) VALUES ('s', 'p', 60000)""".stripMargin
        )(_.execute())
      )
      upgraded <- PgSession.open[IO](db).use(QueueSchema.migrate[IO])
      kept <- long(
        db,
        """SELECT count(*) FROM weir.jobs WHERE payload = 'old' AND kind = 'k' AND unique_key = 'u'
          |   AND timeout_ms IS NULL AND unique_period IS NULL""".stripMargin
      )
      schedule <- long(
        db,
        "SELECT count(*) FROM weir.schedules WHERE name = 's' AND kind = 'default'"
      )
      // The key is still taken by the unfinished job (its id, since 0008); the old named
      // arguments still resolve.
      taken <- long(
        db,
        "SELECT count(*) FROM weir.enqueue('q', 'new', unique_key => 'u') AS e, weir.jobs j WHERE e = j.id AND j.payload = 'old'"
      )
      added <- long(
        db,
        "SELECT count(*) FROM weir.enqueue('q', 'new', kind => 'k', priority => 2) AS e WHERE e IS NOT NULL"
      )
    yield
      assertEquals(old.map(_.report.outcome), Right(ApplyReport.Outcome.Completed))
      assertEquals(
        upgraded.map(r => (r.report.outcome, r.report.files.size)),
        Right((ApplyReport.Outcome.Completed, QueueSchema.files.size - 6))
      )
      assertEquals((kept, schedule, taken, added), (1L, 1L, 1L, 1L))
  }
