package weir.postgres.queue

import cats.effect.{IO, Ref}
import munit.CatsEffectSuite
import scala.concurrent.duration.*
import weir.engine.RetryPolicy
import weir.postgres.{PgSession, PgTarget}
import weir.{Attempts, Concurrency, NonNegativeDuration, PositiveDuration}

/** Failures injected into a worker's statements on a real PostgreSQL (issue 21, item 6): a
  * statement timeout while another session locks `weir.jobs`, a privilege revoked while the worker
  * holds jobs. Errors that may pass are retried and reported ([[WorkerEvent.UpkeepError]]); leases
  * that cannot be renewed for a whole lease end the run with [[QueueError.LeasesLost]]. What is
  * asserted is counted: the handler's runs, the rows and attempts the server saw, the events.
  */
class WorkerFaultSuite extends CatsEffectSuite:
  import QueueDbs.*
  import Faults.*

  override def munitIOTimeout: Duration = 2.minutes

  private val retryFast =
    RetryPolicy.exponential(
      Attempts(2),
      NonNegativeDuration.millis(50),
      NonNegativeDuration.millis(300)
    )

  private def settings(lease: FiniteDuration, heartbeat: FiniteDuration): QueueSettings =
    val valid = for
      l <- PositiveDuration.from(lease)
      h <- PositiveDuration.from(heartbeat)
      s <- QueueSettings.default.withLease(l, h)
    yield s.withPoll(PositiveDuration.millis(200)).withReconnect(retryFast)
    valid.fold(e => fail(e.getMessage), identity)

  private val engine = WorkerSettings.default.withConcurrency(Concurrency(16))

  // The handler's runs of each job, counted in the test.
  private def counting(runs: Ref[IO, Map[Long, Int]], after: IO[Unit]): Job => IO[Unit] =
    j => runs.update(m => m.updated(j.id, m.getOrElse(j.id, 0) + 1)) >> after

  // Every event of `w` into `seen` while `body` runs.
  private def collecting[A](w: Worker[IO], seen: Ref[IO, Vector[WorkerEvent]])(body: IO[A]): IO[A] =
    w.subscribe().use { events =>
      events.evalMap(e => seen.update(_ :+ e)).compile.drain.background.surround(body)
    }

  private def upkeepErrors(seen: Ref[IO, Vector[WorkerEvent]], part: UpkeepPart): IO[Int] =
    seen.get.map(_.count {
      case WorkerEvent.UpkeepError(p, _, _) => p == part
      case _                                => false
    })

  private def onceEach(db: PgTarget, runs: Map[Long, Int], n: Int): IO[Unit] =
    for
      completed <- long(db, "SELECT count(*) FROM weir.jobs WHERE state = 'completed'")
      again <- long(db, "SELECT count(*) FROM weir.jobs WHERE attempt <> 1")
      rejected <- long(db, "SELECT count(*) FROM weir.job_rejections")
    yield
      assertEquals(completed, n.toLong)
      assertEquals(again, 0L, "a job was claimed more than once")
      assertEquals(rejected, 0L)
      assertEquals(runs.size, n)
      assertEquals(runs.values.filter(_ != 1).size, 0, s"jobs run more than once: $runs")

  test(
    "a statement timeout while another session locks weir.jobs longer: the worker retries, reports it, and runs every job once"
  ) {
    val n = 200
    for
      db <- fresh("locktimeout")
      worker <- workerRole(db, "statement_timeout = '1500ms'")
      _ <- PgSession.open[IO](db).use(s => Enqueue.many(s, jobs(n)))
      runs <- IO.ref(Map.empty[Long, Int])
      seen <- IO.ref(Vector.empty[WorkerEvent])
      gate <- IO.deferred[Unit]
      _ <- Worker.resource[IO](worker, settings(20.seconds, 1.second), engine).use { w =>
        val faults =
          waitCount(
            db,
            "SELECT count(*) FROM weir.jobs WHERE state = 'running'",
            1,
            atLeast = true
          ) >>
            // The handlers end while the lock is held: their completions meet it too.
            lockJobs(db, 5, gate.complete(()).void) >>
            waitCount(db, "SELECT count(*) FROM weir.jobs WHERE state = 'completed'", n) >> w.stop
        collecting(w, seen)(w.run(counting(runs, gate.get)).both(faults))
      }
      ran <- runs.get
      _ <- onceEach(db, ran, n)
      heartbeat <- upkeepErrors(seen, UpkeepPart.Heartbeat)
      completion <- upkeepErrors(seen, UpkeepPart.Completion)
      all <- seen.get
    yield
      assert(
        heartbeat > 0,
        s"no heartbeat error reported: ${all.filter(_.isInstanceOf[WorkerEvent.UpkeepError])}"
      )
      assert(completion > 0, "no completion error reported")
  }

  test(
    "leases that cannot be renewed for a whole lease (EXECUTE on renew_leases revoked): the run ends with LeasesLost, one line, its handlers interrupted"
  ) {
    val renew = "weir.renew_leases(bigint[], integer[], bigint)"
    for
      db <- fresh("leaseslost")
      worker <- workerRole(db)
      _ <- PgSession.open[IO](db).use(s => Enqueue.many(s, jobs(20)))
      started <- IO.ref(0)
      interrupted <- IO.ref(0)
      seen <- IO.ref(Vector.empty[WorkerEvent])
      handler = (_: Job) =>
        (started.update(_ + 1) >> IO.never[Unit]).onCancel(interrupted.update(_ + 1))
      outcome <- Worker.resource[IO](worker, settings(3.seconds, 500.millis), engine).use { w =>
        val revoke = waitUntil("16 handlers started")(started.get.map(_ == 16)) >>
          exec(db, s"REVOKE EXECUTE ON FUNCTION $renew FROM PUBLIC")
        collecting(w, seen)(w.run(handler).attempt.both(revoke).map(_._1))
      }
      _ <- exec(db, s"GRANT EXECUTE ON FUNCTION $renew TO PUBLIC")
      s <- started.get
      i <- interrupted.get
      heartbeat <- upkeepErrors(seen, UpkeepPart.Heartbeat)
    yield
      outcome match
        case Left(e: QueueError.LeasesLost) =>
          assert(!e.getMessage.contains('\n'), e.getMessage)
          assert(e.getMessage.contains("permission denied"), e.getMessage)
        case other => fail(s"expected LeasesLost, got $other")
      assertEquals(i, s, "every handler started is interrupted")
      assert(heartbeat > 0, "the failed renewals were not reported")
  }

  test(
    "completions refused for a while (EXECUTE on complete_jobs revoked, then granted back): retried, reported, no job run twice"
  ) {
    val n = 100
    val complete = "weir.complete_jobs(bigint[], integer[])"
    for
      db <- fresh("completefails")
      worker <- workerRole(db)
      _ <- PgSession.open[IO](db).use(s => Enqueue.many(s, jobs(n)))
      runs <- IO.ref(Map.empty[Long, Int])
      seen <- IO.ref(Vector.empty[WorkerEvent])
      gate <- IO.deferred[Unit]
      _ <- Worker.resource[IO](worker, settings(20.seconds, 1.second), engine).use { w =>
        val faults =
          waitUntil("a handler started")(runs.get.map(_.nonEmpty)) >>
            exec(db, s"REVOKE EXECUTE ON FUNCTION $complete FROM PUBLIC") >> gate.complete(()) >>
            waitUntil("a completion error reported")(
              upkeepErrors(seen, UpkeepPart.Completion).map(_ >= 2)
            ) >>
            exec(db, s"GRANT EXECUTE ON FUNCTION $complete TO PUBLIC") >>
            waitCount(db, "SELECT count(*) FROM weir.jobs WHERE state = 'completed'", n) >> w.stop
        collecting(w, seen)(w.run(counting(runs, gate.get)).both(faults))
      }
      ran <- runs.get
      _ <- onceEach(db, ran, n)
    yield ()
  }
