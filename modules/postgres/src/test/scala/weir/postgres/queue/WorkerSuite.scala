package weir.postgres.queue

import cats.effect.IO
import cats.effect.std.CountDownLatch
import cats.syntax.all.*
import munit.CatsEffectSuite
import scala.concurrent.duration.*
import weir.engine.RetryPolicy
import weir.postgres.{PgSession, PgTarget}
import weir.{Attempts, Capacity, Concurrency, NonNegativeDuration, PositiveDuration}

/** [[Worker]]s on a real PostgreSQL: jobs flow through the engine and are completed, failures are
  * retried, a notification wakes an idle worker, a graceful stop releases what is held, and lost
  * connections are reopened without losing a job. Everything asserted is counted in the database.
  */
class WorkerSuite extends CatsEffectSuite:
  import QueueDbs.*

  override def munitIOTimeout: Duration = 2.minutes

  private val quick = QueueSettings.default
    .withBackoff(
      RetryPolicy.exponential(Attempts(2), NonNegativeDuration.zero, NonNegativeDuration.zero)
    )
    .withPoll(PositiveDuration.millis(200))
    .withCompletions(Capacity(500))
    .withLease(PositiveDuration.seconds(5), PositiveDuration.seconds(1))
    .fold(e => fail(e.getMessage), identity)

  private val engine = WorkerSettings.default.withConcurrency(Concurrency(16))

  /** Runs `workers` workers on `db` until `done` holds, then stops them; their reports. */
  private def runUntil(
      db: PgTarget,
      workers: Int,
      settings: QueueSettings,
      handler: Job => IO[Unit]
  )(
      done: IO[Boolean]
  ): IO[List[Worker.Report]] =
    (1 to workers).toList.traverse(_ => Worker.resource[IO](db, settings, engine)).use { ws =>
      val waiting = (IO.sleep(50.millis) >> done).iterateUntil(identity) >> ws.traverse_(_.stop)
      ws.parTraverse(_.run(handler)).both(waiting).map(_._1)
    }

  test("three workers complete every job once; failed attempts are retried until they succeed") {
    val n = 3000
    for
      db <- fresh("workers")
      _ <- PgSession.open[IO](db).use(s => Enqueue.many(s, jobs(n)))
      handler = (job: Job) =>
        if job.payload.toInt % 10 == 0 && job.attempt == 1 then
          IO.raiseError(new RuntimeException("first try fails"))
        else IO.unit
      reports <- runUntil(db, 3, quick, handler)(
        long(db, "SELECT count(*) FROM weir.jobs WHERE state = 'completed'").map(_ == n)
      )
      retried <- long(db, "SELECT count(*) FROM weir.jobs WHERE attempt = 2 AND errors = 1")
      rejected <- long(db, "SELECT count(*) FROM weir.job_rejections")
      held <- long(db, "SELECT count(*) FROM weir.jobs WHERE state <> 'completed'")
    yield
      assertEquals(retried, (n / 10).toLong)
      assertEquals(rejected, 0L)
      assertEquals(held, 0L)
      assertEquals(reports.map(_.counts.written.completed).sum, n)
      assertEquals(reports.map(_.counts.written.retried).sum, n / 10)
      assertEquals(reports.map(_.engine.succeeded).sum, n.toLong)
  }

  test(
    "untilEmpty: the run ends by itself once every job is done, its own failed attempts retried first"
  ) {
    val n = 500
    // An hour's poll: only the completer's written batches can wake the loop waiting for its own.
    val sleepy = quick.withPoll(PositiveDuration.hours(1))
    for
      db <- fresh("burndown")
      _ <- PgSession.open[IO](db).use(s => Enqueue.many(s, jobs(n)))
      report <- Worker.resource[IO](db, sleepy, engine).use { w =>
        w.run(
          job =>
            if job.payload.toInt % 5 == 0 && job.attempt == 1 then
              IO.raiseError(new RuntimeException("first try fails"))
            else IO.unit,
          untilEmpty = true
        ).timeout(1.minute)
      }
      completed <- long(db, "SELECT count(*) FROM weir.jobs WHERE state = 'completed'")
    yield
      assertEquals(completed, n.toLong)
      assertEquals(report.counts.written.completed, n)
      assertEquals(report.counts.written.retried, n / 5)
  }

  test("an idle worker is woken by the enqueue's notification (its poll interval is an hour)") {
    val sleepy = quick.withPoll(PositiveDuration.hours(1))
    for
      db <- fresh("wake")
      woken <- runUntil(db, 1, sleepy, _ => IO.unit)(
        // Enqueued once the worker is idle: it has made its first (empty) claim.
        long(
          db,
          "SELECT count(*) FROM pg_stat_activity WHERE application_name LIKE 'weir worker (listen) %'"
        ).flatMap { listening =>
          if listening == 0 then IO.pure(false)
          else
            long(db, "SELECT count(*) FROM weir.jobs").flatMap(n =>
              PgSession.open[IO](db).use(s => Enqueue.one(s, NewJob("wake up"))).whenA(n == 0)
            ) >> long(db, "SELECT count(*) FROM weir.jobs WHERE state = 'completed'").map(_ == 1)
        }
      ).timeout(30.seconds).attempt
      completed <- long(db, "SELECT count(*) FROM weir.jobs WHERE state = 'completed'")
    yield
      // Without the notification the job would wait for the next poll, an hour away.
      assert(
        woken.isRight,
        s"the job enqueued to an idle worker did not complete within 30 s: $woken"
      )
      assertEquals(completed, 1L)
      assertEquals(woken.toOption.get.map(_.counts.claimedJobs), List(1L))
  }

  test(
    "a graceful stop releases the jobs still held at once: started ones with their attempt, the rest without"
  ) {
    val settings = quick.withClaimBatch(Capacity(20))
    val slow =
      WorkerSettings.default.withConcurrency(Concurrency(4)).withStopGrace(NonNegativeDuration.zero)
    for
      db <- fresh("release")
      _ <- PgSession.open[IO](db).use(s => Enqueue.many(s, jobs(50)))
      started <- CountDownLatch[IO](4)
      report <- Worker.resource[IO](db, settings, slow).use { w =>
        // Stopped once all four handlers (the engine's concurrency) have started.
        w.run(_ => started.release >> IO.never).both(started.await >> w.stop).map(_._1)
      }
      running <- long(db, "SELECT count(*) FROM weir.jobs WHERE state <> 'available'")
      counted <- long(db, "SELECT count(*) FROM weir.jobs WHERE attempt = 1")
      uncounted <- long(db, "SELECT count(*) FROM weir.jobs WHERE attempt = 0")
    yield
      assertEquals(running, 0L)
      assertEquals(counted, 4L) // the four whose handler had started
      assertEquals(uncounted, 46L)
      assertEquals(report.counts.releasedAtStop, report.counts.claimedJobs)
  }

  test(
    "the engine never retries inside an attempt (WorkerSettings has no retry policy): the handler runs once per attempt, up to the job's max attempts"
  ) {
    for
      db <- fresh("noretry")
      _ <- PgSession
        .open[IO](db)
        .use(s => Enqueue.one(s, NewJob("x").withMaxAttempts(Attempts(3))))
      calls <- IO.ref(0)
      _ <- Worker.resource[IO](db, quick, engine).use { w =>
        val discarded = long(db, "SELECT count(*) FROM weir.jobs WHERE state = 'discarded'")
        w.run(_ => calls.update(_ + 1) >> IO.raiseError(new RuntimeException("always")))
          .both((IO.sleep(50.millis) >> discarded).iterateUntil(_ == 1) >> w.stop)
      }
      n <- calls.get
      attempts <- long(db, "SELECT attempt FROM weir.jobs")
    yield
      assertEquals(n, 3)
      assertEquals(attempts, 3L)
  }

  test("connections killed on the server mid-run are reopened, and no job is lost") {
    val n = 2000
    for
      db <- fresh("reconnect")
      _ <- PgSession.open[IO](db).use(s => Enqueue.many(s, jobs(n)))
      kills <- IO.ref(0)
      // The second half of the jobs waits until the three kills have happened, so that all three
      // land mid-run however fast the machine is.
      killed <- IO.deferred[Unit]
      handler = (j: Job) => killed.get.whenA(j.payload.toInt >= n / 2) >> IO.sleep(2.millis)
      reports <- runUntil(db, 2, quick, handler)(
        long(db, "SELECT count(*) FROM weir.jobs WHERE state = 'completed'").flatMap { done =>
          if done >= n then IO.pure(true)
          else
            kills.get
              .flatMap { k =>
                (long(
                  db,
                  "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name LIKE 'weir worker%'"
                ) >> kills.update(_ + 1) >> killed.complete(()).void.whenA(k == 2))
                  .whenA(k < 3 && done > k * n / 10)
              }
              .as(false)
        }
      )
      k <- kills.get
      lost <- long(db, "SELECT count(*) FROM weir.jobs WHERE state <> 'completed'")
    yield
      assertEquals(k, 3)
      assertEquals(lost, 0L)
      assert(reports.map(_.lostConnections).sum > 0, s"no connection was seen lost: $reports")
  }
