package weir.cli.queue

import cats.effect.{IO, Resource}
import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.atomic.{AtomicLongArray, LongAdder}
import scala.concurrent.duration.FiniteDuration
import scala.jdk.CollectionConverters.*
import weir.postgres.queue.{Worker, WorkerEvent}

/** What `weir worker --metrics` counts from the worker's events ([[Worker.listen]]), beside what
  * its progress already holds: each kind's outcomes (handlers that succeeded, attempts that failed,
  * those retried, jobs discarded), and the claim and acknowledgement latencies as histograms
  * ([[WorkerEvent.Claimed]]'s statement time, [[WorkerEvent.Acknowledged]]'s batch write time).
  *
  * '''Concurrency.''' Counted in the fibers that publish the events, on concurrent counters (a
  * subscription's buffer and fiber cost a wake-up per job: measured, bench/queue/typed.sh); a
  * scrape reads them at any time ([[current]]), each counter exact, the set of them not one
  * instant's. Nothing is lost, so [[WorkerTally.Tally.dropped]] stays 0.
  */
final class WorkerTally private (counters: WorkerTally.Counters):

  /** The tally so far. */
  def current: IO[WorkerTally.Tally] = IO(counters.tally)

object WorkerTally:

  /** The upper bounds of the latency histograms' buckets, in seconds (+Inf beside). */
  val bounds: Vector[Double] =
    Vector(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10)

  /** One kind's outcomes: handlers that succeeded, attempts that failed (`retried` of them run
    * again), jobs discarded (after their last attempt, or by their handler).
    */
  final case class Outcomes(completed: Long, failed: Long, retried: Long, discarded: Long)

  object Outcomes:
    /** No outcome yet. */
    val zero: Outcomes = Outcomes(0, 0, 0, 0)

  /** A histogram: the count in each bucket of [[bounds]] (not cumulative; the last is +Inf), the
    * sum of the values in seconds, and their count.
    */
  final case class Histogram(buckets: Vector[Long], sum: Double, count: Long):

    /** `d` counted in the first bucket whose bound it does not exceed. */
    def add(d: FiniteDuration): Histogram =
      val s = d.toNanos / 1e9
      val i = bounds.indexWhere(s <= _) match
        case -1 => bounds.size
        case n  => n
      Histogram(buckets.updated(i, buckets(i) + 1), sum + s, count + 1)

    /** The cumulative counts of Prometheus's `le` buckets, +Inf last. */
    def cumulative: Vector[Long] = buckets.scanLeft(0L)(_ + _).tail

  object Histogram:
    /** Nothing counted. */
    val empty: Histogram = Histogram(Vector.fill(bounds.size + 1)(0L), 0, 0)

  /** The outcomes by kind, the two latencies, and how many events the tally lost. */
  final case class Tally(
      byKind: Map[String, Outcomes],
      claims: Histogram,
      acks: Histogram,
      dropped: Long
  ):
    /** `event` counted. */
    def add(event: WorkerEvent): Tally = event match
      case WorkerEvent.Succeeded(job, _) =>
        outcome(job.kind)(o => o.copy(completed = o.completed + 1))
      case f @ WorkerEvent.Failed(job, _, _) =>
        val again = if f.willRetry then 1 else 0
        outcome(job.kind)(o => o.copy(failed = o.failed + 1, retried = o.retried + again))
      case WorkerEvent.Discarded(job, _) =>
        outcome(job.kind)(o => o.copy(discarded = o.discarded + 1))
      case WorkerEvent.Claimed(_, took)         => copy(claims = claims.add(took))
      case WorkerEvent.Acknowledged(_, _, took) => copy(acks = acks.add(took))
      case WorkerEvent.Lagged(n)                => copy(dropped = dropped + n)
      case _                                    => this

    private def outcome(kind: String)(f: Outcomes => Outcomes): Tally =
      copy(byKind = byKind.updated(kind, f(byKind.getOrElse(kind, Outcomes.zero))))

  object Tally:
    /** Nothing counted. */
    val empty: Tally = Tally(Map.empty, Histogram.empty, Histogram.empty, 0)

  // The events the tally reads.
  private def counted(e: WorkerEvent): Boolean = e match
    case _: WorkerEvent.Succeeded | _: WorkerEvent.Failed | _: WorkerEvent.Discarded => true
    case _: WorkerEvent.Claimed | _: WorkerEvent.Acknowledged                        => true
    case _                                                                           => false

  /** Tallies `worker`'s events while in use (see [[WorkerTally]]). */
  def resource(worker: Worker[IO]): Resource[IO, WorkerTally] =
    val counters = new Counters
    worker.listen(counted)(counters.add).map(_ => new WorkerTally(counters))

  /** The tally's concurrent counters: outcomes by kind, the two latency histograms. */
  private final class Counters:
    private val byKind = new ConcurrentHashMap[String, Array[LongAdder]]
    private val claims = new Buckets
    private val acks = new Buckets

    def add(event: WorkerEvent): Unit = event match
      case WorkerEvent.Succeeded(job, _) => of(job.kind)(0).increment()
      case f @ WorkerEvent.Failed(job, _, _) =>
        val o = of(job.kind)
        o(1).increment()
        if f.willRetry then o(2).increment()
      case WorkerEvent.Discarded(job, _)        => of(job.kind)(3).increment()
      case WorkerEvent.Claimed(_, took)         => claims.add(took)
      case WorkerEvent.Acknowledged(_, _, took) => acks.add(took)
      case _                                    => ()

    private def of(kind: String): Array[LongAdder] =
      byKind.computeIfAbsent(kind, _ => Array.fill(4)(new LongAdder))

    def tally: Tally =
      val outcomes = byKind.asScala.view.mapValues { o =>
        Outcomes(o(0).sum, o(1).sum, o(2).sum, o(3).sum)
      }.toMap
      Tally(outcomes, claims.histogram, acks.histogram, 0)

  /** A [[Histogram]] counted concurrently. */
  private final class Buckets:
    private val counts = new AtomicLongArray(bounds.size + 1)
    private val nanos = new LongAdder
    private val total = new LongAdder

    def add(d: FiniteDuration): Unit =
      val s = d.toNanos / 1e9
      val i = bounds.indexWhere(s <= _) match
        case -1 => bounds.size
        case n  => n
      counts.incrementAndGet(i)
      nanos.add(d.toNanos)
      total.increment()

    def histogram: Histogram =
      Histogram(Vector.tabulate(bounds.size + 1)(counts.get), nanos.sum / 1e9, total.sum)
