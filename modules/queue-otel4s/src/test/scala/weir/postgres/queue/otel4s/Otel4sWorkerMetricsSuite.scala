package weir.postgres.queue.otel4s

import cats.data.NonEmptyList
import cats.effect.IO
import cats.syntax.all.*
import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.atomic.AtomicLong
import munit.CatsEffectSuite
import scala.concurrent.duration.*
import scala.jdk.CollectionConverters.*
import weir.Attempts
import weir.postgres.PgSession
import weir.postgres.queue.*

/** A real worker on the test PostgreSQL, its metrics recorded through otel4s's `Meter[IO]` (the
  * oteljava backend over the OpenTelemetry SDK) and read by the SDK's in-memory reader: the counts
  * by queue and kind exactly what the worker did, the histograms holding one value per claim and
  * per batch the worker's own events reported, in flight back to 0 after the run, nothing lost.
  */
class Otel4sWorkerMetricsSuite extends CatsEffectSuite:
  import QueueDbs.*
  import Faults.waitUntil

  override def munitIOTimeout: Duration = 2.minutes

  private def job(payload: String, kind: String, queue: String): NewJob =
    NewJob(payload).withQueue(queue).flatMap(_.withKind(kind)).fold(throw _, identity)

  private def serving(queues: String*): QueueSettings =
    quickQueue().withQueues(NonEmptyList.fromListUnsafe(queues.toList)).fold(throw _, identity)

  private def labels(pairs: (String, String)*): Map[String, String] = pairs.toMap

  test(
    "counts by queue and kind exactly as the worker did; one histogram value per claim and batch"
  ) {
    val q = labels("queue" -> "q")
    val qa = labels("queue" -> "q", "kind" -> "a")
    val qb = labels("queue" -> "q", "kind" -> "b")
    val ra = labels("queue" -> "r", "kind" -> "a")
    // What the worker's own events say, counted beside the instruments (inline, exact): claims by
    // queue, batches, results written.
    val claimsByQueue = new ConcurrentHashMap[String, AtomicLong]
    val batches = new AtomicLong
    val results = new AtomicLong
    val own: WorkerEvent => Unit =
      case WorkerEvent.Claimed(jobs, _) =>
        claimsByQueue.computeIfAbsent(jobs.head.queue, _ => new AtomicLong).incrementAndGet(): Unit
      case WorkerEvent.Acknowledged(n, _, _) =>
        batches.incrementAndGet()
        results.addAndGet(n): Unit
      case _ => ()
    Collected.sdk.use { (meter, collect) =>
      given org.typelevel.otel4s.metrics.Meter[IO] = meter
      for
        db <- fresh("otel4scounts")
        // q: 7 of kind a that succeed, 3 of kind b that fail both their attempts; r: 2 of kind a.
        _ <- PgSession.open[IO](db).use { s =>
          Enqueue.many(
            s,
            Vector.tabulate(7)(i => job(s"a$i", "a", "q")) ++
              Vector.tabulate(3)(i => job(s"b$i", "b", "q").withMaxAttempts(Attempts(2))) ++
              Vector.tabulate(2)(i => job(s"r$i", "a", "r"))
          )
        }
        handler = (j: Job) =>
          if j.kind == "b" then IO.raiseError(new RuntimeException("no")) else IO.unit
        _ <- Worker.resource[IO](db, serving("q", "r"), smallEngine).use { w =>
          (Otel4sWorkerMetrics.resource(w) >> w.listen()(own)).surround(
            w.run(handler, untilEmpty = true, tick = 50.millis).timeout(1.minute) >>
              // Every result written (7 + 6 + 2); then, since the instruments record from a
              // buffered subscription, in their own fiber, the last batch recorded.
              waitUntil("every result written")(IO(results.get == 15L)) >>
              waitUntil("every batch recorded")(
                collect.map(_.counts("weir.queue.ack.duration").values.sum == batches.get)
              ) >>
              waitUntil("in flight back to 0, one series: the worker's")(
                collect
                  .map(_.sums("weir.queue.jobs.in_flight") == Map(labels("worker" -> w.id) -> 0L))
              )
          )
        }
        seen <- collect
      yield
        assertEquals(seen.sums("weir.queue.jobs.claimed"), Map(qa -> 7L, qb -> 6L, ra -> 2L))
        assertEquals(seen.sums("weir.queue.jobs.completed"), Map(qa -> 7L, ra -> 2L))
        assertEquals(seen.sums("weir.queue.jobs.failed"), Map(qb -> 6L))
        assertEquals(seen.sums("weir.queue.jobs.retried"), Map(qb -> 3L))
        assertEquals(seen.sums("weir.queue.jobs.discarded"), Map(qb -> 3L))
        // The subscription kept up: nothing lost.
        assertEquals(seen.sums("weir.queue.events.lost"), Map.empty)
        val claims = claimsByQueue.asScala.map((k, v) => labels("queue" -> k) -> v.get).toMap
        assert(claims.contains(q), claims)
        assertEquals(seen.counts("weir.queue.claim.duration"), claims)
        assertEquals(
          seen.counts("weir.queue.ack.duration"),
          Map(Map.empty[String, String] -> batches.get)
        )
        assertEquals(seen.unit("weir.queue.claim.duration"), "s")
        assertEquals(
          seen.boundaries("weir.queue.claim.duration"),
          Otel4sWorkerMetrics.bounds.boundaries.toList
        )
    }
  }
