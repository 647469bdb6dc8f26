package weir.postgres.queue

import cats.effect.{IO, Ref}
import munit.CatsEffectSuite
import scala.concurrent.duration.*
import weir.postgres.PgSession
import weir.{Attempts, PositiveDuration}

/** Timeouts of a job's own ([[NewJob.withTimeout]], enforced by every worker) and of a kind
  * ([[JobHandlers.Entry.withTimeout]]) on a real PostgreSQL: a handler that runs longer is
  * cancelled and its attempt fails with [[JobTimedOut]], retried, then discarded; a job's own
  * timeout takes the place of its kind's. Runs end by themselves (`untilEmpty`); what is asserted
  * is what the server holds and how many handlers were cancelled.
  */
class JobTimeoutSuite extends CatsEffectSuite:
  import QueueDbs.*

  override def munitIOTimeout: Duration = 2.minutes

  private val quick = quickQueue()
  private val engine = smallEngine

  private def drain(db: weir.postgres.PgTarget, handler: Job => IO[Unit]) =
    Worker.resource[IO](db, quick, engine).use(_.run(handler, untilEmpty = true).timeout(1.minute))

  test("a job's own timeout: its handler is cancelled, the attempt fails, retried, discarded") {
    val slow = NewJob("slow").withTimeout(PositiveDuration.millis(200)).withMaxAttempts(Attempts(2))
    val fast = NewJob("fast").withTimeout(PositiveDuration.seconds(30))
    for
      db <- fresh("jobtimeout")
      // COPY (no key) and INSERT (a key) both write the timeout.
      _ <- PgSession.open[IO](db).use { s =>
        Enqueue.many(s, Vector.fill(3)(slow) :+ fast) >> Enqueue.one(s, fast.withUniqueKey("u"))
      }
      cancelled <- Ref.of[IO, Int](0)
      _ <- drain(
        db,
        job =>
          if job.payload == "slow" then IO.sleep(1.minute).onCancel(cancelled.update(_ + 1))
          else IO.unit
      )
      discarded <- long(
        db,
        """SELECT count(*) FROM weir.jobs WHERE payload = 'slow' AND state = 'discarded'
          |   AND attempt = 2 AND errors = 2 AND timeout_ms = 200
          |   AND last_error LIKE 'timeout: job % (attempt 2) timed out after 200 ms'""".stripMargin
      )
      completed <- long(
        db,
        "SELECT count(*) FROM weir.jobs WHERE payload = 'fast' AND state = 'completed' AND timeout_ms = 30000"
      )
      times <- cancelled.get
    yield
      assertEquals(discarded, 3L)
      assertEquals(completed, 2L)
      assertEquals(times, 6)
  }

  test("a kind's timeout through JobHandlers; a job's own timeout takes its place") {
    val report = JobKind[String]("report")
    val own = report.job("own").withTimeout(PositiveDuration.seconds(30))
    val bounded = report.job("bounded").withMaxAttempts(Attempts(1))
    for
      db <- fresh("kindtimeout")
      _ <- PgSession.open[IO](db).use(s => Enqueue.many(s, Vector(own, bounded, bounded)))
      handlers = JobHandlers.of[IO](
        report
          .handledBy[IO](p => IO.sleep(if p == "own" then 500.millis else 1.minute))
          .withTimeout(PositiveDuration.millis(200))
      )
      _ <- drain(db, handlers.handler)
      discarded <- long(
        db,
        """SELECT count(*) FROM weir.jobs WHERE payload = 'bounded' AND state = 'discarded'
          |   AND last_error LIKE 'timeout: job % (attempt 1) timed out after 200 ms'""".stripMargin
      )
      completed <- long(
        db,
        "SELECT count(*) FROM weir.jobs WHERE payload = 'own' AND state = 'completed' AND attempt = 1"
      )
    yield
      assertEquals(discarded, 2L)
      assertEquals(completed, 1L)
  }

  test(
    "the worker's per-job timeout: one watcher cancels the handlers past it, before a longer own timeout"
  ) {
    val slow = NewJob("slow").withMaxAttempts(Attempts(1))
    val longOwn = slow.withTimeout(PositiveDuration.minutes(1))
    val shortOwn = slow.withTimeout(PositiveDuration.millis(100))
    val timed = engine.withTaskTimeout(PositiveDuration.millis(300))
    for
      db <- fresh("workertimeout")
      _ <- PgSession.open[IO](db).use { s =>
        Enqueue.many(s, Vector(slow, slow, longOwn, shortOwn) ++ Vector.fill(3)(NewJob("fast")))
      }
      cancelled <- Ref.of[IO, Int](0)
      handler = (job: Job) =>
        if job.payload == "slow" then IO.never.onCancel(cancelled.update(_ + 1)) else IO.unit
      _ <- Worker
        .resource[IO](db, quick, timed)
        .use(_.run(handler, untilEmpty = true).timeout(1.minute))
      byWorker <- long(
        db,
        """SELECT count(*) FROM weir.jobs WHERE payload = 'slow' AND state = 'discarded'
          |   AND last_error = 'timed out after 300 milliseconds'""".stripMargin
      )
      byOwn <- long(
        db,
        """SELECT count(*) FROM weir.jobs WHERE payload = 'slow' AND state = 'discarded'
          |   AND last_error LIKE 'timeout: job % (attempt 1) timed out after 100 ms'""".stripMargin
      )
      completed <- long(
        db,
        "SELECT count(*) FROM weir.jobs WHERE payload = 'fast' AND state = 'completed'"
      )
      times <- cancelled.get
      errors <- sql(db) { c =>
        val rs = c.createStatement.executeQuery(
          "SELECT state || ' ' || coalesce(last_error, '-') FROM weir.jobs WHERE payload = 'slow'"
        )
        Iterator.continually(rs).takeWhile(_.next()).map(_.getString(1)).toList
      }
    yield
      assertEquals(byWorker, 3L, errors.mkString("\n"))
      assertEquals(byOwn, 1L)
      assertEquals(completed, 3L)
      assertEquals(times, 4)
  }
