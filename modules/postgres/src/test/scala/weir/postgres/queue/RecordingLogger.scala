package weir.postgres.queue

import cats.effect.{IO, Ref}
import org.typelevel.log4cats.SelfAwareStructuredLogger

/** An in-memory log4cats logger for tests: every line at or above `minimum` (one of [[WorkerLog]]'s
  * levels; error lines are kept as `Warn`'s level is the highest WorkerLog writes) is recorded with
  * its level, message, context and error, in order.
  */
final class RecordingLogger private (
    minimum: WorkerLog.Level,
    lines: Ref[IO, Vector[WorkerLog.Entry]]
) extends SelfAwareStructuredLogger[IO]:
  import WorkerLog.Level

  /** What was logged so far, in order. */
  def logged: IO[Vector[WorkerLog.Entry]] = lines.get

  private def on(l: Level) = l.ordinal >= minimum.ordinal
  private def add(l: Level, ctx: Map[String, String], t: Option[Throwable], m: => String) =
    if on(l) then lines.update(_ :+ WorkerLog.Entry(l, m, ctx, t)) else IO.unit

  def isTraceEnabled: IO[Boolean] = IO.pure(on(Level.Trace))
  def isDebugEnabled: IO[Boolean] = IO.pure(on(Level.Debug))
  def isInfoEnabled: IO[Boolean] = IO.pure(on(Level.Info))
  def isWarnEnabled: IO[Boolean] = IO.pure(on(Level.Warn))
  def isErrorEnabled: IO[Boolean] = IO.pure(true)

  def trace(ctx: Map[String, String])(m: => String): IO[Unit] = add(Level.Trace, ctx, None, m)
  def trace(ctx: Map[String, String], t: Throwable)(m: => String): IO[Unit] =
    add(Level.Trace, ctx, Some(t), m)
  def debug(ctx: Map[String, String])(m: => String): IO[Unit] = add(Level.Debug, ctx, None, m)
  def debug(ctx: Map[String, String], t: Throwable)(m: => String): IO[Unit] =
    add(Level.Debug, ctx, Some(t), m)
  def info(ctx: Map[String, String])(m: => String): IO[Unit] = add(Level.Info, ctx, None, m)
  def info(ctx: Map[String, String], t: Throwable)(m: => String): IO[Unit] =
    add(Level.Info, ctx, Some(t), m)
  def warn(ctx: Map[String, String])(m: => String): IO[Unit] = add(Level.Warn, ctx, None, m)
  def warn(ctx: Map[String, String], t: Throwable)(m: => String): IO[Unit] =
    add(Level.Warn, ctx, Some(t), m)
  def error(ctx: Map[String, String])(m: => String): IO[Unit] = add(Level.Warn, ctx, None, m)
  def error(ctx: Map[String, String], t: Throwable)(m: => String): IO[Unit] =
    add(Level.Warn, ctx, Some(t), m)

  def trace(t: Throwable)(m: => String): IO[Unit] = trace(Map.empty, t)(m)
  def debug(t: Throwable)(m: => String): IO[Unit] = debug(Map.empty, t)(m)
  def info(t: Throwable)(m: => String): IO[Unit] = info(Map.empty, t)(m)
  def warn(t: Throwable)(m: => String): IO[Unit] = warn(Map.empty, t)(m)
  def error(t: Throwable)(m: => String): IO[Unit] = error(Map.empty, t)(m)
  def trace(m: => String): IO[Unit] = trace(Map.empty[String, String])(m)
  def debug(m: => String): IO[Unit] = debug(Map.empty[String, String])(m)
  def info(m: => String): IO[Unit] = info(Map.empty[String, String])(m)
  def warn(m: => String): IO[Unit] = warn(Map.empty[String, String])(m)
  def error(m: => String): IO[Unit] = error(Map.empty[String, String])(m)

object RecordingLogger:
  def apply(minimum: WorkerLog.Level): IO[RecordingLogger] =
    IO.ref(Vector.empty[WorkerLog.Entry]).map(new RecordingLogger(minimum, _))
