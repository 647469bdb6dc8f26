package weir.postgres.queue

import cats.effect.IO
import munit.CatsEffectSuite
import scala.concurrent.duration.*
import weir.engine.RetryPolicy
import weir.postgres.PgSession
import weir.{Attempts, Concurrency, NonNegativeDuration, PositiveDuration}

/** The latencies a worker's events carry, on a real PostgreSQL: every claim that took jobs is one
  * [[WorkerEvent.Claimed]] with its statement's time, and the [[WorkerEvent.Acknowledged]] batches
  * account for every result written, exactly (completions, retries, discards), each with its time.
  */
class WorkerLatencySuite extends CatsEffectSuite:
  import QueueDbs.*
  import Faults.*

  override def munitIOTimeout: Duration = 2.minutes

  private val quick = QueueSettings.default
    .withBackoff(
      RetryPolicy.exponential(Attempts(2), NonNegativeDuration.zero, NonNegativeDuration.zero)
    )
    .withPoll(PositiveDuration.millis(200))

  test(
    "Claimed and Acknowledged: claims and batches timed, the batches summing to what was written"
  ) {
    for
      db <- fresh("latency")
      // 40 jobs; "7" fails once, "9" fails its only attempt (discarded).
      _ <- PgSession.open[IO](db).use { s =>
        Enqueue.many(s, jobs(40).filterNot(_.payload == "9")) >>
          Enqueue.one(s, NewJob("9").withMaxAttempts(Attempts(1))).void
      }
      seen <- IO.ref(Vector.empty[WorkerEvent])
      handler = (j: Job) =>
        if j.payload == "9" || (j.payload == "7" && j.attempt == 1) then
          IO.raiseError(new RuntimeException("no"))
        else IO.unit
      report <- Worker
        .resource[IO](db, quick, WorkerSettings.default.withConcurrency(Concurrency(8)))
        .use { w =>
          w.subscribe().use { events =>
            events
              .evalMap(e => seen.update(_ :+ e))
              .compile
              .drain
              .background
              .surround(
                w.run(handler, untilEmpty = true).timeout(1.minute) <* waitUntil("every batch")(
                  seen.get.map(_.collect { case a: WorkerEvent.Acknowledged => a.batch }.sum == 41)
                )
              )
          }
        }
      all <- seen.get
    yield
      val claims = all.collect { case WorkerEvent.Claimed(js, took) => (js.size, took) }
      val batches = all.collect { case WorkerEvent.Acknowledged(n, w, took) => (n, w, took) }
      assertEquals(claims.map(_._1).sum, 41) // 40 jobs, "7" twice
      assert(claims.size.toLong <= report.counts.claims) // a claim that took nothing: no event
      assert(claims.forall(_._2 > Duration.Zero))
      assertEquals(batches.map(_._1).sum, 41) // every result, each in one batch
      val written = batches.map(_._2).reduce(_ + _)
      assertEquals(written, report.counts.written)
      assertEquals((written.completed, written.retried, written.discarded), (39, 1, 1))
      assert(batches.forall(_._3 > Duration.Zero))
  }
