package weir.postgres.queue

import cats.effect.{IO, Ref}
import cats.syntax.all.*
import munit.CatsEffectSuite
import scala.concurrent.duration.*
import weir.postgres.PgSession
import weir.{Attempts, PositiveDuration}

/** A worker's events, a queue paused and resumed, a running job cancelled (issue 21, items 4 and
  * 5), on a real PostgreSQL; everything asserted is counted (rows, events, handler runs).
  */
class WorkerControlSuite extends CatsEffectSuite:
  import QueueDbs.*
  import Faults.*

  override def munitIOTimeout: Duration = 2.minutes

  private val quick = quickQueue(PositiveDuration.seconds(3))
  private val engine = smallEngine

  private def collecting[A](w: Worker[IO], seen: Ref[IO, Vector[WorkerEvent]])(body: IO[A]): IO[A] =
    w.subscribe().use { events =>
      events.evalMap(e => seen.update(_ :+ e)).compile.drain.background.surround(body)
    }

  private val completed = "SELECT count(*) FROM weir.jobs WHERE state = 'completed'"

  test(
    "events: each job claimed, started and succeeded or failed once, retries and discards said"
  ) {
    for
      db <- fresh("events")
      _ <- PgSession.open[IO](db).use { s =>
        Enqueue.many(s, jobs(10)) >>
          Enqueue.one(s, NewJob("last").withMaxAttempts(Attempts(1))).void
      }
      seen <- IO.ref(Vector.empty[WorkerEvent])
      handler = (j: Job) =>
        if j.payload == "last" || (j.payload == "3" && j.attempt == 1) then
          IO.raiseError(new RuntimeException("no"))
        else IO.unit
      _ <- Worker.resource[IO](db, quick, engine).use { w =>
        collecting(w, seen)(
          w.run(handler)
            .both(
              waitCount(db, completed, 10) >> waitUntil("the last event")(seen.get.map(_.exists {
                case _: WorkerEvent.Discarded => true
                case _                        => false
              })) >> w.stop
            )
        )
      }
      all <- seen.get
    yield
      val claimed = all.collect { case WorkerEvent.Claimed(js, _) => js.size }.sum
      val started = all.count(_.isInstanceOf[WorkerEvent.Started])
      val succeeded = all.collect { case WorkerEvent.Succeeded(j, _) => j.payload }
      val failed = all.collect { case WorkerEvent.Failed(j, _, again) =>
        (j.payload, again.isDefined)
      }
      val discarded = all.collect { case WorkerEvent.Discarded(j, _) => j.payload }
      assertEquals(claimed, 12) // 11 jobs, "3" twice
      assertEquals(started, 12)
      assertEquals(succeeded.sorted, (0 until 10).map(_.toString).toVector.sorted)
      assertEquals(failed.sorted, Vector("3" -> true, "last" -> false))
      assertEquals(discarded, Vector("last"))
  }

  test("a slow subscriber loses events (counted in Lagged), never slowing the worker") {
    for
      db <- fresh("lagged")
      _ <- PgSession.open[IO](db).use(s => Enqueue.many(s, jobs(300)))
      report <- Worker.resource[IO](db, quick, engine).use { w =>
        // A buffer of 4 that nobody reads while the run goes on.
        w.subscribe(4).use { events =>
          w.run(_ => IO.unit, untilEmpty = true).flatMap { r =>
            events.take(5).compile.toVector.map(r -> _)
          }
        }
      }
      (r, first) = report
    yield
      assertEquals(r.counts.written.completed, 300)
      first.head match
        case WorkerEvent.Lagged(n) => assert(n > 500, s"lost $n")
        case other                 => fail(s"expected Lagged first, got $other")
      assertEquals(first.size, 5)
  }

  test(
    "cancelling a running job: its handler is interrupted, the row stays cancelled, the worker goes on"
  ) {
    for
      db <- fresh("cancelrun")
      ids <- PgSession.open[IO](db).use { s =>
        Enqueue.one(s, NewJob("block")).map(e => List(e.id)) >>= (b =>
          Enqueue.many(s, jobs(10)).as(b)
        )
      }
      blocked = ids.head
      seen <- IO.ref(Vector.empty[WorkerEvent])
      interrupted <- IO.deferred[Unit]
      handler = (j: Job) =>
        if j.payload == "block" then IO.never[Unit].onCancel(interrupted.complete(()).void)
        else IO.unit
      report <- Worker.resource[IO](db, quick, engine).use { w =>
        val cancelling =
          waitUntil("the blocking job started")(seen.get.map(_.exists {
            case WorkerEvent.Started(j) => j.id == blocked
            case _                      => false
          })) >>
            PgSession.open[IO](db).use(s => QueueAdmin.cancel(s, Seq(blocked))).flatMap { c =>
              IO(assertEquals(c, Vector(blocked)))
            } >>
            interrupted.get.timeout(30.seconds) >>
            PgSession.open[IO](db).use(s => Enqueue.many(s, jobs(5))) >>
            waitCount(db, completed, 15) >> w.stop
        collecting(w, seen)(w.run(handler).both(cancelling).map(_._1))
      }
      state <- sql(db)(c =>
        Jdbc.prepared(c, s"SELECT state FROM weir.jobs WHERE id = $blocked")(s =>
          Jdbc.rows(s)(_.getString(1)).head
        )
      )
      rejected <- long(db, "SELECT count(*) FROM weir.job_rejections")
      all <- seen.get
    yield
      assertEquals(state, "cancelled")
      assertEquals(rejected, 0L, "nothing is written back for the interrupted job")
      assertEquals(
        all.collect { case WorkerEvent.Cancelled(j, why) => (j.id, why) },
        Vector(blocked -> CancelReason.CancelledInQueue)
      )
      assertEquals(report.counts.written.completed, 15)
  }

  test(
    "pause: an idle worker claims nothing while the queue is paused; resume wakes it and the jobs run"
  ) {
    // An hour's poll: only a notification can wake the idle worker.
    val sleepy = quick.withPoll(PositiveDuration.hours(1))
    for
      db <- fresh("pause")
      _ <- PgSession.open[IO](db).use(s => Enqueue.one(s, NewJob("first")))
      unknown <- PgSession.open[IO](db).use(s => QueueAdmin.pause(s, "nosuch"))
      paused <- PgSession.open[IO](db).use(s => QueueAdmin.pause(s, NewJob.defaultQueue))
      again <- PgSession.open[IO](db).use(s => QueueAdmin.pause(s, NewJob.defaultQueue))
      availableWhilePaused <- IO.ref(0L)
      report <- Worker.resource[IO](db, sleepy, engine).use { w =>
        def claims(n: Long) =
          w.progress.find(_.counts.claims >= n).compile.lastOrError.timeout(30.seconds).void
        val control =
          claims(1) >> PgSession.open[IO](db).use(s => Enqueue.many(s, jobs(20))) >>
            // The enqueue's notification woke it: it looked again and found nothing to claim.
            claims(2) >>
            long(db, "SELECT count(*) FROM weir.jobs WHERE state = 'available'").flatMap(
              availableWhilePaused.set
            ) >>
            PgSession.open[IO](db).use(s => QueueAdmin.resume(s, NewJob.defaultQueue)).flatMap {
              r => IO(assertEquals(r, Right(true)))
            } >>
            waitCount(db, completed, 21) >> w.stop
        w.run(_ => IO.unit, tick = 20.millis).both(control).map(_._1)
      }
      resumed <- PgSession.open[IO](db).use(s => QueueAdmin.resume(s, NewJob.defaultQueue))
      whilePaused <- availableWhilePaused.get
    yield
      assertEquals(whilePaused, 21L, "a job was claimed while the queue was paused")
      assertEquals(unknown, Left(QueueError.UnknownQueue("nosuch")))
      assertEquals(paused, Right(false))
      assertEquals(again, Right(true))
      assertEquals(resumed, Right(false))
      assertEquals(report.counts.claims >= 3, true, s"${report.counts}")
      assertEquals(report.counts.claimedJobs, 21L)
  }
