package weir.cli.applysql

import cats.effect.IO
import scala.collection.mutable.ArrayBuffer
import scala.concurrent.duration.*
import weir.postgres.ApplyProgress

/** An apply's progress over time, for the HTML report: what had been applied (bytes, statements,
  * COPY rows) at moments a second apart, from the start, in constant memory.
  *
  * The points are running totals, so a long apply is thinned by dropping every other point (the
  * rates between the points left stay exact): at most [[ApplyTimeline.MaxPoints]] points, and the
  * interval doubles each time they fill up. Thread-safe.
  */
final class ApplyTimeline(progress: ApplyProgress, start: FiniteDuration):
  private val points = ArrayBuffer(ApplyTimeline.Point(Duration.Zero, 0, 0, 0))
  private var every: FiniteDuration = 1.second

  /** Takes a point every second (or wider) until cancelled. */
  def sample: IO[Nothing] =
    (IO(synchronized(every)).flatMap(IO.sleep) >> IO.monotonic.flatMap(take)).foreverM

  /** Takes a point now (the last one, when the apply has ended). */
  def take(now: FiniteDuration): IO[Unit] = IO(synchronized {
    if now - start > points.last.at then
      points += ApplyTimeline
        .Point(now - start, progress.bytes, progress.statements, progress.copyRows)
      if points.size > ApplyTimeline.MaxPoints then
        val kept = points.zipWithIndex.collect {
          case (p, i) if i % 2 == 0 || i == points.size - 1 => p
        }
        points.clear()
        points ++= kept
        every = every * 2
  })

  /** The points so far, in time order, the first at the start (all zero). */
  def pointsSoFar: Vector[ApplyTimeline.Point] = synchronized(points.toVector)

object ApplyTimeline:

  /** The most points kept. */
  val MaxPoints = 480

  /** What had been applied `at` after the start. */
  final case class Point(at: FiniteDuration, bytes: Long, statements: Long, copyRows: Long)
