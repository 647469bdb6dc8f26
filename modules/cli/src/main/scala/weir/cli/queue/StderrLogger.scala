package weir.cli.queue

import cats.effect.IO
import org.typelevel.log4cats.SelfAwareStructuredLogger
import weir.cli.common.StatusLine
import weir.postgres.queue.WorkerLog

/** `weir worker --log LEVEL`: a log4cats logger that prints each line at `minimum` or above on
  * stderr, one line each, above the live line ([[StatusLine.warn]]): `weir worker: LEVEL message
  * key=value ...`, the context's keys sorted, an error as its class and the first line of its
  * message (never a stack trace). Error lines print at any level. What [[WorkerLog]] writes through
  * it is the worker's log; the command needs no logging backend for it.
  */
final class StderrLogger(minimum: WorkerLog.Level) extends SelfAwareStructuredLogger[IO]:
  import WorkerLog.Level

  private def on(l: Level) = l.ordinal >= minimum.ordinal

  private def print(name: String, ctx: Map[String, String], t: Option[Throwable], m: String) =
    StatusLine.warn(StderrLogger.line(name, m, ctx, t))

  private def at(l: Level, ctx: Map[String, String], t: Option[Throwable], m: => String) =
    if on(l) then print(l.toString.toLowerCase, ctx, t, m) else IO.unit

  def isTraceEnabled: IO[Boolean] = IO.pure(on(Level.Trace))
  def isDebugEnabled: IO[Boolean] = IO.pure(on(Level.Debug))
  def isInfoEnabled: IO[Boolean] = IO.pure(on(Level.Info))
  def isWarnEnabled: IO[Boolean] = IO.pure(on(Level.Warn))
  def isErrorEnabled: IO[Boolean] = IO.pure(true)

  def trace(ctx: Map[String, String])(m: => String): IO[Unit] = at(Level.Trace, ctx, None, m)
  def trace(ctx: Map[String, String], t: Throwable)(m: => String): IO[Unit] =
    at(Level.Trace, ctx, Some(t), m)
  def debug(ctx: Map[String, String])(m: => String): IO[Unit] = at(Level.Debug, ctx, None, m)
  def debug(ctx: Map[String, String], t: Throwable)(m: => String): IO[Unit] =
    at(Level.Debug, ctx, Some(t), m)
  def info(ctx: Map[String, String])(m: => String): IO[Unit] = at(Level.Info, ctx, None, m)
  def info(ctx: Map[String, String], t: Throwable)(m: => String): IO[Unit] =
    at(Level.Info, ctx, Some(t), m)
  def warn(ctx: Map[String, String])(m: => String): IO[Unit] = at(Level.Warn, ctx, None, m)
  def warn(ctx: Map[String, String], t: Throwable)(m: => String): IO[Unit] =
    at(Level.Warn, ctx, Some(t), m)
  def error(ctx: Map[String, String])(m: => String): IO[Unit] = print("error", ctx, None, m)
  def error(ctx: Map[String, String], t: Throwable)(m: => String): IO[Unit] =
    print("error", ctx, Some(t), m)

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

object StderrLogger:

  /** The line printed for a message at `level` with `context` and `error`. */
  def line(
      level: String,
      message: String,
      context: Map[String, String],
      error: Option[Throwable]
  ): String =
    val pairs = context.toVector.sortBy(_._1).map((k, v) => s" $k=${quoted(v)}").mkString
    val why = error.fold("") { e =>
      val first = Option(e.getMessage).flatMap(_.linesIterator.map(_.trim).find(_.nonEmpty))
      s" error=${quoted(e.getClass.getSimpleName + first.fold("")(": " + _))}"
    }
    s"weir worker: $level $message$pairs$why"

  // A value with a space, a quote or nothing in it is quoted, its quotes and backslashes escaped.
  private def quoted(v: String): String =
    if v.nonEmpty && !v.exists(c => c.isWhitespace || c == '"' || c == '=') then v
    else "\"" + v.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n") + "\""
