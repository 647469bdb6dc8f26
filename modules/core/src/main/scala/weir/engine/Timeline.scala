package weir.engine

import cats.kernel.Monoid
import scala.concurrent.duration.*

/** A run's figures interval by interval, in constant memory whatever the run's length: weir's one
  * timeline, under every report's charts over time. An immutable value; a [[Recorder]] keeps the
  * current one (in a `Ref` or an atomic) and adds to it on the run's tick.
  *
  * Interval `i` covers `[i * width, (i + 1) * width)` of the run's time (from its start). [[add]]
  * merges a value into the interval its time falls in, with the figures' `Monoid` (the earlier
  * value on the left); intervals never added to hold `Monoid.empty`. Values must come in time
  * order.
  *
  * '''Constant memory.''' At most `capacity` intervals are kept: a value beyond them first merges
  * the intervals in neighbouring pairs and doubles the width, as many times as needed, so a run of
  * any length ends with at most `capacity` intervals (and at least half as many once it has been
  * widened). What the merged figures mean is the `Monoid`'s to say: counts add up exactly; a
  * percentile can only be bounded or weighted, since the histograms behind it are not kept.
  *
  * @param capacity
  *   the most intervals kept (even, at least 2)
  * @param width
  *   the time each interval covers now
  * @param intervals
  *   one per interval from the start, up to the last one added to
  */
final case class Timeline[I] private (capacity: Int, width: FiniteDuration, intervals: Vector[I]):

  /** This timeline with `value` merged into the interval that `at` (since the run's start) falls
    * in, widened first if `at` lies beyond its capacity.
    */
  def add(at: FiniteDuration, value: I)(using I: Monoid[I]): Timeline[I] =
    val index = math.max(0L, at.toNanos / width.toNanos)
    if index >= capacity then widened.add(at, value)
    else
      val i = index.toInt
      val grown = if intervals.size > i then intervals else intervals.padTo(i + 1, I.empty)
      copy(intervals = grown.updated(i, I.combine(grown(i), value)))

  /** The same figures in intervals twice as wide. */
  def widened(using I: Monoid[I]): Timeline[I] =
    copy(width = width * 2, intervals = intervals.grouped(2).map(I.combineAll).toVector)

  /** Each interval with its start (since the run's start), in time order. */
  def starts: Vector[(FiniteDuration, I)] =
    intervals.zipWithIndex.map((value, i) => (width * i.toLong, value))

  /** The time the intervals cover: up to the end of the last one. */
  def span: FiniteDuration = width * intervals.size.toLong

object Timeline:

  /** The most intervals kept unless told otherwise: a few hundred points per chart. */
  val DefaultCapacity: Int = 480

  /** An empty timeline of intervals `width` wide (at least 1 ms) keeping at most `capacity` (at
    * least 2, rounded up to an even number).
    */
  def start[I](width: FiniteDuration, capacity: Int = DefaultCapacity): Timeline[I] =
    Timeline(math.max(2, capacity + capacity % 2), width.max(1.milli), Vector.empty)
