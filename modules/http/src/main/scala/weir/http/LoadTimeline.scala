package weir.http

import cats.kernel.Monoid
import scala.concurrent.duration.*
import weir.engine.Timeline

/** A load's figures interval by interval (requests finished, in flight, latency percentiles, errors
  * by class), for the report's charts over time: weir's one [[weir.engine.Timeline]] (constant
  * memory whatever the load's length) of [[LoadTimeline.Interval]]s.
  *
  * [[close]] closes the interval since the one before by draining the recorder's interval histogram
  * ([[LoadRecorder.tick]]): the load's run calls it on every tick of the engine and once more at
  * its end (see [[LoadRequests]]). It is the only reader of the recorder's intervals.
  *
  * '''Merged intervals.''' When the intervals are full, neighbours are merged in pairs (see
  * [[weir.engine.Timeline]]): a one-second resolution becomes two seconds after eight minutes, four
  * after sixteen, and so on. A merged interval's counts are exact; its p50 is the mean of the two
  * p50s weighted by their responses, its p99 and max the larger of the two (an upper bound), since
  * the histograms behind them are not kept, and its in-flight figure the later one's.
  *
  * Thread-safe: calls to [[close]] may race; each interval is closed once.
  */
final class LoadTimeline(recorder: LoadRecorder, start: FiniteDuration, every: FiniteDuration):
  private var timeline = Timeline.start[LoadTimeline.Interval](every, LoadTimeline.MaxIntervals)
  private var last: FiniteDuration = start
  private var before = LoadRecorder.Tick.zero

  /** Closes the interval that ends `now` (nothing when it is empty). */
  def close(now: FiniteDuration): Unit = synchronized {
    if now > last then
      val tick = recorder.tick
      val interval = LoadTimeline.Interval(
        start = last - start,
        length = now - last,
        finished = tick.finished - before.finished,
        answered = tick.recent.count,
        inFlight = tick.inFlight,
        p50 = tick.recent.p50,
        p99 = tick.recent.p99,
        max = tick.recent.max,
        errors = tick.failures
          .map((k, n) => k -> (n - before.failures.getOrElse(k, 0L)))
          .filter(_._2 > 0)
      )
      timeline = timeline.add(interval.start, interval)
      before = tick
      last = now
  }

  /** The intervals so far, in time order, back to back: each with the start and length it was
    * closed with (a tick that came late makes its interval longer and the next one start later; a
    * merged interval spans the intervals merged into it), not its slot's nominal bounds.
    */
  def intervalsSoFar: Vector[LoadTimeline.Interval] = synchronized {
    timeline.starts.collect { case (_, i) if i.length > Duration.Zero => i }
  }

object LoadTimeline:

  /** The most intervals kept (see [[LoadTimeline]]): a few hundred points per chart. */
  val MaxIntervals: Int = Timeline.DefaultCapacity

  /** One interval of a load, from `start` (since the load's clock started) for `length`.
    *
    * @param finished
    *   requests that ended in the interval: answered, or failed for good without an answer
    * @param answered
    *   requests answered in the interval (any status): what the percentiles are of
    * @param inFlight
    *   requests in flight at the interval's end
    * @param p50
    *   median latency of the answered requests, ns (0 when none was)
    * @param errors
    *   failures by class: an [[ErrorClass]]'s label, or `status>=400` for answers with such a
    *   status
    */
  final case class Interval(
      start: FiniteDuration,
      length: FiniteDuration,
      finished: Long,
      answered: Long,
      inFlight: Long,
      p50: Long,
      p99: Long,
      max: Long,
      errors: Map[String, Long]
  ):
    /** This interval and the next one as one (see [[LoadTimeline]] for the percentiles); an empty
      * interval (a gap) changes nothing.
      */
    def merge(next: Interval): Interval =
      if next.length == Duration.Zero then this
      else if length == Duration.Zero then next
      else
        val both = answered + next.answered
        Interval(
          start,
          next.start + next.length - start,
          finished + next.finished,
          both,
          next.inFlight,
          if both == 0 then 0L
          else ((p50.toDouble * answered + next.p50.toDouble * next.answered) / both).toLong,
          p99 max next.p99,
          max max next.max,
          (errors.keySet ++ next.errors.keySet)
            .map(k => k -> (errors.getOrElse(k, 0L) + next.errors.getOrElse(k, 0L)))
            .toMap
        )

  object Interval:

    /** No time and nothing in it: what a gap in the timeline holds. */
    val empty: Interval = Interval(Duration.Zero, Duration.Zero, 0, 0, 0, 0, 0, 0, Map.empty)

    /** Intervals merged in time order, as [[weir.engine.Timeline]] merges them. */
    given Monoid[Interval] with
      def empty: Interval = Interval.empty
      def combine(earlier: Interval, later: Interval): Interval = earlier.merge(later)
