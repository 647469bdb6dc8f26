package weir.cli.applysql

import cats.effect.IO
import cats.kernel.Monoid
import scala.concurrent.duration.*
import weir.engine.Timeline
import weir.postgres.ApplyProgress

/** An apply's progress over time, for the HTML report: what was applied (bytes, statements, COPY
  * rows) second by second, on weir's one [[weir.engine.Timeline]] (constant memory: past
  * [[ApplyTimeline.MaxPoints]] intervals, neighbours merge in pairs and the width doubles; the
  * amounts stay exact).
  *
  * [[take]] adds what was applied since the take before to the interval where that span began;
  * [[pointsSoFar]] gives the running totals at each interval's end. Thread-safe.
  */
final class ApplyTimeline(progress: ApplyProgress, start: FiniteDuration):
  import ApplyTimeline.{Applied, Point}

  private var timeline = Timeline.start[Applied](1.second, ApplyTimeline.MaxPoints)
  private var last = Point(Duration.Zero, 0, 0, 0)

  /** Takes a point every second until cancelled. */
  def sample: IO[Nothing] = (IO.sleep(1.second) >> IO.monotonic.flatMap(take)).foreverM

  /** Takes a point now (the last one, when the apply has ended). */
  def take(now: FiniteDuration): IO[Unit] = IO(synchronized {
    if now - start > last.at then
      val point = Point(now - start, progress.bytes, progress.statements, progress.copyRows)
      val applied =
        Applied(
          point.bytes - last.bytes,
          point.statements - last.statements,
          point.copyRows - last.copyRows
        )
      timeline = timeline.add(last.at, applied)
      last = point
  })

  /** The running totals so far, in time order: the first at the start (all zero), then one at the
    * end of each interval (the last one when the last point was taken).
    */
  def pointsSoFar: Vector[Point] = synchronized {
    val ends = timeline.starts.map((at, _) => (at + timeline.width).min(last.at))
    val totals = timeline.intervals.scanLeft(Applied(0, 0, 0))(summon[Monoid[Applied]].combine).tail
    Point(Duration.Zero, 0, 0, 0) +: ends.zip(totals).map { (at, t) =>
      Point(at, t.bytes, t.statements, t.copyRows)
    }
  }

object ApplyTimeline:

  /** The most intervals kept. */
  val MaxPoints = 480

  /** What had been applied `at` after the start. */
  final case class Point(at: FiniteDuration, bytes: Long, statements: Long, copyRows: Long)

  /** What was applied in one interval. */
  private final case class Applied(bytes: Long, statements: Long, copyRows: Long)

  private object Applied:
    given Monoid[Applied] with
      def empty: Applied = Applied(0, 0, 0)
      def combine(a: Applied, b: Applied): Applied =
        Applied(a.bytes + b.bytes, a.statements + b.statements, a.copyRows + b.copyRows)
