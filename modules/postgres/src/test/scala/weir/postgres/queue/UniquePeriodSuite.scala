package weir.postgres.queue

import cats.effect.IO
import cats.syntax.all.*
import munit.CatsEffectSuite
import scala.concurrent.duration.*
import weir.PositiveDuration
import weir.postgres.PgSession

/** Unique keys held over a period ([[NewJob.withUniqueKey]] with a period, migration 0007) on a
  * real PostgreSQL: a second job of the same key in the same period is skipped even once the first
  * has completed, one of another period or another queue is not; racing inserts leave one row; the
  * SQL function `weir.enqueue` takes `unique_period` and `timeout` by name and refuses bad ones.
  * Counted in the database.
  */
class UniquePeriodSuite extends CatsEffectSuite:
  import QueueDbs.*

  override def munitIOTimeout: Duration = 2.minutes

  private val hour = PositiveDuration.hours(1)

  private def keyed(payload: String, key: String, queue: String = "q"): NewJob =
    NewJob(payload).withQueue(queue).fold(throw _, identity).withUniqueKey(key, hour)

  private def one(db: weir.postgres.PgTarget, job: NewJob): IO[Enqueued] =
    PgSession.open[IO](db).use(Enqueue.one(_, job))

  private def exec(db: weir.postgres.PgTarget, statement: String): IO[Int] =
    sql(db)(c => Jdbc.prepared(c, statement)(_.executeUpdate()))

  test("same key, same period: skipped while the first is unfinished and after it completed") {
    for
      db <- fresh("uniqperiod")
      first <- one(db, keyed("a", "report"))
      whileRunning <- one(db, keyed("b", "report"))
      _ <- exec(db, s"UPDATE weir.jobs SET state = 'completed', finished_at = now()")
      afterDone <- one(db, keyed("c", "report"))
      otherQueue <- one(db, keyed("d", "report", queue = "other"))
      otherKey <- one(db, keyed("e", "invoice"))
      // Without a period the key holds only while a job is unfinished: the completed one is not.
      unfinishedOnly <- one(
        db,
        NewJob("f").withQueue("q").fold(throw _, identity).withUniqueKey("report")
      )
      whileUnfinished <- one(db, keyed("g", "report"))
      _ <- exec(db, "UPDATE weir.jobs SET state = 'completed', finished_at = now()")
      // The first job as if it had been inserted in the period before: the key is free again.
      _ <- exec(
        db,
        s"UPDATE weir.jobs SET unique_period = unique_period - interval '1 hour' WHERE id = ${first.id}"
      )
      nextPeriod <- one(db, keyed("h", "report"))
      reports <- long(
        db,
        "SELECT count(*) FROM weir.jobs WHERE queue = 'q' AND unique_key = 'report'"
      )
      aligned <- long(
        db,
        "SELECT count(*) FROM weir.jobs WHERE unique_period = date_trunc('hour', created_at)"
      )
    yield
      assert(first.isNew)
      // Skipped: the id of the job holding the key (the unfinished one first, else the period's).
      assertEquals(
        (whileRunning, afterDone, whileUnfinished),
        (
          Enqueued.Existing(first.id),
          Enqueued.Existing(first.id),
          Enqueued.Existing(unfinishedOnly.id)
        )
      )
      assert(otherQueue.isNew && otherKey.isNew && unfinishedOnly.isNew)
      assert(nextPeriod.isNew)
      assertEquals(reports, 3L)
      // Periods of an hour aligned to the epoch are clock hours (UTC); `first`'s was moved back.
      assertEquals(aligned, 3L)
  }

  test("one statement with the same key twice, and 8 sessions racing: one job each") {
    for
      db <- fresh("uniqrace")
      many <- PgSession
        .open[IO](db)
        .use(s => Enqueue.many(s, Vector(keyed("1", "k"), keyed("2", "k"))))
      raced <- (1 to 8).toVector.parTraverse(i => one(db, keyed(i.toString, "race")))
      _ <- exec(db, "UPDATE weir.jobs SET state = 'cancelled', finished_at = now()")
      again <- (1 to 4).toVector.parTraverse(i => one(db, keyed(i.toString, "race")))
      rows <- long(db, "SELECT count(*) FROM weir.jobs WHERE unique_key = 'race'")
    yield
      assertEquals(many, 1L)
      assertEquals(raced.count(_.isNew), 1)
      assertEquals(raced.map(_.id).distinct.size, 1)
      assertEquals(again.count(_.isNew), 0)
      assertEquals(again.map(_.id).distinct, raced.map(_.id).distinct)
      assertEquals(rows, 1L)
  }

  test("weir.enqueue: unique_period and timeout by name; bad values refused, nothing inserted") {
    def call(db: weir.postgres.PgTarget, args: String): IO[Either[Throwable, Option[Long]]] =
      sql(db)(c =>
        Jdbc.prepared(c, s"SELECT weir.enqueue($args)")(s =>
          Jdbc.rows(s)(r => Option(r.getObject(1)).map(_ => r.getLong(1))).head
        )
      ).attempt
    for
      db <- fresh("uniqsql")
      run = (args: String) => call(db, args)
      first <- run(
        "'q', 'p', unique_key => 'k', unique_period => interval '1 day', timeout => interval '30 seconds'"
      )
      _ <- exec(db, "UPDATE weir.jobs SET state = 'completed', finished_at = now()")
      second <- run("'q', '{\"a\":1}'::jsonb, unique_key => 'k', unique_period => interval '1 day'")
      noKey <- run("'q', 'p', unique_period => interval '1 day'")
      zero <- run("'q', 'p', timeout => interval '0 seconds'")
      timeout <- long(db, s"SELECT timeout_ms FROM weir.jobs")
      day <- long(
        db,
        "SELECT count(*) FROM weir.jobs WHERE unique_period = date_trunc('day', created_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'"
      )
      rows <- long(db, "SELECT count(*) FROM weir.jobs")
    yield
      assert(first.exists(_.isDefined), first)
      // The key's period taken by the completed first job: its id (migration 0008), no new row.
      assertEquals(second.toOption.flatten, first.toOption.flatten)
      assert(noKey.left.exists(_.getMessage.contains("unique_period needs a unique_key")), noKey)
      assert(
        zero.left.exists(_.getMessage.contains("timeout must be at least 1 millisecond")),
        zero
      )
      assertEquals(timeout, 30000L)
      assertEquals(day, 1L)
      assertEquals(rows, 1L)
  }
