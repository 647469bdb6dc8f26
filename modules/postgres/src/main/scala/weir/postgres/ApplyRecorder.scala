package weir.postgres

import cats.effect.Sync
import cats.kernel.Monoid
import java.util.concurrent.atomic.{AtomicLong, AtomicReference}
import scala.concurrent.duration.*
import weir.engine.{Recorder, Snapshot, TaskOutcome, TaskResult, Timeline}

/** What an apply has applied so far: the measurement point of its engine run ([[ApplyRun]]), read
  * by live views and reports. Bytes and lines of the files (counted when the step that holds them
  * has been applied, not when it was read), statements, COPY rows, the statement being applied, and
  * on each of the run's ticks what was applied since the tick before, in a [[weir.engine.Timeline]]
  * of one-second intervals (constant memory: past [[ApplyRecorder.MaxIntervals]] intervals,
  * neighbours merge in pairs and the width doubles; the amounts stay exact).
  *
  * '''Concurrency.''' Written by the run (each step's result, in the step's fiber; the ticks, never
  * two at once); every reader may be called from any fiber at any time. A step costs a few atomic
  * adds, whatever its size.
  */
final class ApplyRecorder private (val total: Long):
  import ApplyRecorder.{Applied, Point}

  private val bytesDone = new AtomicLong
  private val linesDone = new AtomicLong
  private val statementsDone = new AtomicLong
  private val rowsDone = new AtomicLong
  private val current = new AtomicReference[Option[SqlPosition]](None)
  private val echoes = new java.util.concurrent.ConcurrentLinkedQueue[String]
  // Bytes and lines of the files finished before the current one.
  @volatile private var bytesBefore = 0L
  @volatile private var linesBefore = 0L
  // The timeline and the totals at the last tick (guarded by `this`).
  private var applied = Timeline.start[Applied](1.second, ApplyRecorder.MaxIntervals)
  private var last = Point(Duration.Zero, 0, 0, 0)

  /** Bytes of the files applied so far (of the file being applied, up to its last step applied). */
  def bytes: Long = bytesDone.get

  /** Lines of the files applied so far, as [[bytes]]. */
  def lines: Long = linesDone.get

  /** Statements applied so far (a COPY counts one, when its body has been loaded). */
  def statements: Long = statementsDone.get

  /** COPY rows loaded so far (lines sent, then the server's count when the COPY ends). */
  def copyRows: Long = rowsDone.get

  /** The statement being applied now (for a COPY, the COPY statement); `None` before the first. */
  def at: Option[SqlPosition] = current.get

  /** The lines of psql's `\echo` (`\qecho`, `\warn`) the apply has reached since the last call, in
    * order, each once: a view prints them (the command, on stderr). Each is reached after the
    * statements before it were applied.
    */
  def echoed(): List[String] =
    Iterator.continually(echoes.poll()).takeWhile(_ != null).toList

  /** What was applied interval by interval, up to the run's last tick. */
  def timeline: Timeline[Applied] = synchronized(applied)

  /** The running totals up to the run's last tick, in time order: the first at the start (all
    * zero), then one at the end of each interval of [[timeline]] (the last one at the last tick).
    */
  def points: Vector[Point] = synchronized {
    val ends = applied.starts.map((at, _) => (at + applied.width).min(last.at))
    val totals = applied.intervals.scanLeft(Applied.zero)(summon[Monoid[Applied]].combine).tail
    Point(Duration.Zero, 0, 0, 0) +: ends.zip(totals).map { (at, t) =>
      Point(at, t.bytes, t.statements, t.copyRows)
    }
  }

  /** The step that begins now applies the statement at `position` (set before it runs, so that a
    * view shows a long statement while it runs).
    */
  private[postgres] def applying(position: SqlPosition): Unit = current.set(Some(position))

  /** An `\echo` line was reached. */
  private[postgres] def echo(text: String): Unit = echoes.add(text): Unit

  /** The run's recorder: each step applied adds what it did; each tick closes an interval. Failed
    * steps and steps never started add nothing (the run ends on them).
    */
  private[postgres] def recording[F[_]](using F: Sync[F]): Recorder[F, ApplyStep, ApplyStep.Done] =
    new Recorder[F, ApplyStep, ApplyStep.Done]:
      def record(result: TaskResult[ApplyStep, ApplyStep.Done]): F[Unit] = result.outcome match
        case TaskOutcome.Succeeded(done) => F.delay(add(done))
        case _                           => F.unit
      def sample(snapshot: Snapshot): F[Unit] = F.delay(tick(snapshot.elapsed))

  private def add(done: ApplyStep.Done): Unit =
    if done.statements != 0 then statementsDone.addAndGet(done.statements.toLong): Unit
    if done.rows != 0 then rowsDone.addAndGet(done.rows): Unit
    done.reached.foreach { mark =>
      bytesDone.set(bytesBefore + mark.bytes)
      linesDone.set(linesBefore + mark.lines)
    }
    done.fileSize.foreach { size =>
      bytesBefore += size
      linesBefore = linesDone.get
      bytesDone.set(bytesBefore)
    }

  // What was applied since the tick before goes to the interval where that span began.
  private def tick(now: FiniteDuration): Unit = synchronized {
    if now > last.at then
      val point = Point(now, bytes, statements, copyRows)
      applied = applied.add(
        last.at,
        Applied(
          point.bytes - last.bytes,
          point.statements - last.statements,
          point.copyRows - last.copyRows
        )
      )
      last = point
  }

object ApplyRecorder:

  /** The most intervals a [[ApplyRecorder.timeline]] keeps. */
  val MaxIntervals: Int = 480

  /** A recorder for an apply of `total` bytes of files (for an ETA). */
  def create(total: Long): ApplyRecorder = new ApplyRecorder(total)

  /** What had been applied `at` after the run's start. */
  final case class Point(at: FiniteDuration, bytes: Long, statements: Long, copyRows: Long)

  /** What was applied in one interval: bytes of the files, statements, COPY rows. */
  final case class Applied(bytes: Long, statements: Long, copyRows: Long)

  object Applied:
    val zero: Applied = Applied(0, 0, 0)

    given Monoid[Applied] with
      def empty: Applied = zero
      def combine(a: Applied, b: Applied): Applied =
        Applied(a.bytes + b.bytes, a.statements + b.statements, a.copyRows + b.copyRows)
