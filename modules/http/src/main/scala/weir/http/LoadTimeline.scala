package weir.http

import cats.effect.kernel.Async
import cats.syntax.all.*
import scala.collection.mutable.ArrayBuffer
import scala.concurrent.duration.*

/** A load's figures interval by interval (requests finished, in flight, latency percentiles, errors
  * by class), for the report's charts over time, in constant memory whatever the load's length.
  *
  * [[sample]] closes an interval every `every` from the load's `start` by draining the recorder's
  * interval histogram ([[LoadRecorder.tick]]); [[close]] closes the last, partial one. It is the
  * only reader of the recorder's intervals.
  *
  * '''Constant memory.''' It keeps at most [[LoadTimeline.MaxIntervals]] intervals: when they are
  * full, neighbours are merged in pairs and later intervals are twice as long, so a one-second
  * resolution becomes two seconds after eight minutes, four after sixteen, and so on. A merged
  * interval's counts are exact; its p50 is the mean of the two p50s weighted by their responses,
  * and its p99 and max the larger of the two (an upper bound), since the histograms behind them are
  * not kept.
  *
  * Thread-safe: [[sample]] and [[close]] may race; each interval is closed once.
  */
final class LoadTimeline(recorder: LoadRecorder, start: FiniteDuration, every: FiniteDuration):
  private val intervals = ArrayBuffer.empty[LoadTimeline.Interval]
  private var width: FiniteDuration = every
  private var last: FiniteDuration = start
  private var before = LoadRecorder.Tick.zero

  /** Closes an interval every `every` (or wider, see above) until cancelled. */
  def sample[F[_]](using F: Async[F]): F[Nothing] =
    (F.delay(synchronized(last + width)).flatMap { due =>
      F.monotonic.flatMap(now => F.sleep(due - now).whenA(due > now))
    } >> F.monotonic.flatMap(now => F.delay(close(now)))).foreverM

  /** Closes the interval that ends `now` (nothing when it is empty). */
  def close(now: FiniteDuration): Unit = synchronized {
    if now > last then
      val tick = recorder.tick
      intervals += LoadTimeline.Interval(
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
      before = tick
      last = now
      if intervals.size >= LoadTimeline.MaxIntervals then halve()
  }

  /** The intervals so far, in time order. */
  def intervalsSoFar: Vector[LoadTimeline.Interval] = synchronized(intervals.toVector)

  private def halve(): Unit =
    val merged = intervals.grouped(2).map(_.reduce(_ merge _)).toVector
    intervals.clear()
    intervals ++= merged
    width = width * 2

object LoadTimeline:

  /** The most intervals kept (see [[LoadTimeline]]): a few hundred points per chart. */
  val MaxIntervals = 480

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
    /** This interval and the next one as one (see [[LoadTimeline]] for the percentiles). */
    def merge(next: Interval): Interval =
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
