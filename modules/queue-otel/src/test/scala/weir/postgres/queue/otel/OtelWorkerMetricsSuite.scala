package weir.postgres.queue.otel

import cats.data.NonEmptyList
import cats.effect.{Deferred, IO, Resource}
import cats.syntax.all.*
import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.atomic.AtomicLong
import munit.CatsEffectSuite
import scala.concurrent.duration.*
import scala.jdk.CollectionConverters.*
import weir.{Attempts, PositiveDuration}
import weir.postgres.PgSession
import weir.postgres.queue.*

/** A real worker on the test PostgreSQL, its metrics recorded on the OpenTelemetry SDK and read by
  * its in-memory reader: the counts by queue and kind exactly what the worker did, the histograms
  * holding one value per claim and per batch the worker's own events reported, in flight seen while
  * handlers run and back to 0 after; the depth of queues read from the database, a failed read
  * leaving a gap, the gauge gone once released.
  */
class OtelWorkerMetricsSuite extends CatsEffectSuite:
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
    // What the worker's own events say, counted beside the instruments: claims by queue, batches,
    // results written.
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
      for
        db <- fresh("otelcounts")
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
          (OtelWorkerMetrics.resource(w, meter) >> w.listen()(own)).surround(
            w.run(handler, untilEmpty = true, tick = 50.millis).timeout(1.minute) >>
              // Every result written (7 + 6 + 2), then the last batch's value recorded.
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
        val claims = claimsByQueue.asScala.map((k, v) => labels("queue" -> k) -> v.get).toMap
        assert(claims.contains(q), claims)
        assertEquals(seen.counts("weir.queue.claim.duration"), claims)
        assertEquals(
          seen.counts("weir.queue.ack.duration"),
          Map(Map.empty[String, String] -> batches.get)
        )
        assertEquals(seen.unit("weir.queue.claim.duration"), "s")
        assertEquals(seen.boundaries("weir.queue.claim.duration"), OtelWorkerMetrics.bounds)
    }
  }

  test("in flight: the handlers running at the worker's sample, 0 once they have returned") {
    Collected.sdk.use { (meter, collect) =>
      for
        db <- fresh("otelinflight")
        _ <- PgSession.open[IO](db).use(s => Enqueue.many(s, jobs(4, "q")))
        gate <- Deferred[IO, Unit]
        inFlight = collect.map(_.sums("weir.queue.jobs.in_flight").values.toList)
        _ <- Worker.resource[IO](db, serving("q"), smallEngine).use { w =>
          OtelWorkerMetrics
            .resource(w, meter)
            .surround(
              w.run(_ => gate.get, untilEmpty = true, tick = 50.millis)
                .timeout(1.minute)
                .both(
                  waitUntil("4 in flight")(inFlight.map(_ == List(4L))) >> gate.complete(())
                ) >> waitUntil("none in flight")(inFlight.map(_ == List(0L)))
            )
        }
        after <- collect
      yield
      // Released: the callback closed, nothing observed any more.
      assertEquals(after.sums("weir.queue.jobs.in_flight"), Map.empty)
    }
  }

  test("released during a run: what it counted stays, nothing after it is recorded") {
    Collected.sdk.use { (meter, collect) =>
      for
        db <- fresh("otelreleased")
        _ <- PgSession.open[IO](db).use(s => Enqueue.many(s, jobs(3, "q")))
        gate <- Deferred[IO, Unit]
        claimed = collect.map(_.sums("weir.queue.jobs.claimed").values.sum)
        _ <- Worker.resource[IO](db, serving("q"), smallEngine).use { w =>
          OtelWorkerMetrics.resource(w, meter).allocated.flatMap { (_, release) =>
            w.run(_ => gate.get, untilEmpty = true, tick = 50.millis)
              .timeout(1.minute)
              .both(waitUntil("3 claimed")(claimed.map(_ == 3L)) >> release >> gate.complete(()))
          }
        }
        after <- collect
      yield
        assertEquals(
          after.sums("weir.queue.jobs.claimed"),
          Map(labels("queue" -> "q", "kind" -> "default") -> 3L)
        )
        // The handlers returned and their batches were written after the release.
        assertEquals(after.sums("weir.queue.jobs.completed"), Map.empty)
        assertEquals(after.counts("weir.queue.ack.duration"), Map.empty)
    }
  }

  test("depth: each queue's jobs waiting, read again every period; a failed read is a gap") {
    val reads = new AtomicLong
    Collected.sdk.use { (meter, collect) =>
      for
        db <- fresh("oteldepth")
        _ <- PgSession.open[IO](db).use(s => Enqueue.many(s, jobs(5, "q") ++ jobs(2, "r")))
        // The first session cannot be opened: the gauge has nothing until the next one reads.
        connect = Resource.eval(IO(reads.incrementAndGet())).flatMap { n =>
          if n == 1 then
            Resource.raiseError[IO, PgSession[IO], Throwable](new RuntimeException("down"))
          else PgSession.open[IO](db, "weir queue depth")
        }
        depth = collect.map(_.gauges("weir.queue.depth"))
        q = labels("queue" -> "q")
        r = labels("queue" -> "r")
        empty = labels("queue" -> "none")
        during <- OtelQueueDepth
          .resource(meter, connect, NonEmptyList.of("q", "r", "none"), PositiveDuration.millis(100))
          .surround(
            depth.flatMap(d => IO(assertEquals(d, Map.empty))) >>
              waitUntil("q 5, r 2, none 0")(depth.map(_ == Map(q -> 5L, r -> 2L, empty -> 0L))) >>
              PgSession.open[IO](db).use(s => Enqueue.many(s, jobs(3, "q"))) >>
              waitUntil("q 8")(depth.map(_.get(q).contains(8L))) >> depth
          )
        after <- depth
      yield
        assertEquals(during, Map(q -> 8L, r -> 2L, empty -> 0L))
        assertEquals(reads.get >= 2L, true)
        assertEquals(after, Map.empty)
    }
  }
