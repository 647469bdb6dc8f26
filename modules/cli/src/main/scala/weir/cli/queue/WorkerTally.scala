package weir.cli.queue

import cats.effect.{IO, Ref, Resource}
import scala.concurrent.duration.FiniteDuration
import weir.postgres.queue.{Worker, WorkerEvent}

/** What `weir worker --metrics` counts from the worker's events ([[Worker.subscribe]]), beside what
  * its progress already holds: each kind's outcomes (handlers that succeeded, attempts that failed,
  * those retried, jobs discarded), and the claim and acknowledgement latencies as histograms
  * ([[WorkerEvent.Claimed]]'s statement time, [[WorkerEvent.Acknowledged]]'s batch write time).
  *
  * '''Concurrency.''' One fiber of the resource's own folds the events into a `Ref`, which a scrape
  * reads at any time ([[current]]). A subscription of its own, with room for [[buffer]] events:
  * when the tally falls that far behind, the worker goes on and the events lost are counted
  * ([[WorkerTally.Tally.dropped]]), never waited for.
  */
final class WorkerTally private (state: Ref[IO, WorkerTally.Tally]):

  /** The tally so far. */
  def current: IO[WorkerTally.Tally] = state.get

object WorkerTally:

  /** The events the tally's subscription holds before it loses some. */
  val buffer: Int = 65536

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

  // The events the tally reads (Lagged is always delivered).
  private def counted(e: WorkerEvent): Boolean = e match
    case _: WorkerEvent.Succeeded | _: WorkerEvent.Failed | _: WorkerEvent.Discarded => true
    case _: WorkerEvent.Claimed | _: WorkerEvent.Acknowledged                        => true
    case _                                                                           => false

  /** Tallies `worker`'s events while in use (see [[WorkerTally]]). */
  def resource(worker: Worker[IO]): Resource[IO, WorkerTally] =
    for
      state <- Resource.eval(IO.ref(Tally.empty))
      events <- worker.subscribe(buffer, counted)
      _ <- events.evalMap(e => state.update(_.add(e))).compile.drain.background
    yield new WorkerTally(state)
