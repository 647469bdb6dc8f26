package weir.postgres.queue

import cats.effect.{Async, Resource}
import cats.effect.syntax.all.*
import cats.syntax.all.*
import org.typelevel.log4cats.{LoggerFactory, SelfAwareStructuredLogger}
import scala.concurrent.duration.FiniteDuration

/** A worker's [[WorkerEvent]]s as structured log lines, through the application's own log4cats
  * logger (weir depends on log4cats-core alone, never on a backend). Each line's context names the
  * worker and, for a job, its queue, kind, id and attempt (`worker`, `queue`, `kind`, `job_id`,
  * `attempt`, `max_attempts`), with the numbers of the event (`duration_ms`, `retry_in_ms`,
  * `jobs`...); the message is a short sentence without them, so that a log search finds it.
  *
  * Levels: warn for what needs a look (a statement failing and retried, a connection lost, a job
  * discarded, a lease lost, events the log lost); info for a failed attempt (with its error), a job
  * cancelled in the queue, a write refused by the fence; debug for each job that succeeded or
  * snoozed and each claim; trace for each handler started and each batch written. See [[entry]].
  *
  * '''Concurrency.''' The lines are written by a fiber of the resource's own, from a subscription
  * of [[WorkerLog.resource]]'s `buffer` ([[Worker.subscribe]]) to the events of the levels the
  * logger has enabled when the resource is acquired (the others never take room in it): a slow
  * logger never slows the worker, it loses lines, and says how many at warn. '''Cancellation.'''
  * Releasing the resource ends the subscription; lines still buffered then are not written.
  * '''Errors.''' A logger that raises loses that line; the next ones are still written.
  */
object WorkerLog:

  /** The logger's name when it is taken from a [[org.typelevel.log4cats.LoggerFactory]]. */
  val loggerName: String = "weir.postgres.queue.Worker"

  /** A line's level, lowest first. */
  enum Level:
    case Trace, Debug, Info, Warn

  /** One line: its level, its message, its context, and the error it is about (if any). */
  final case class Entry(
      level: Level,
      message: String,
      context: Map[String, String],
      error: Option[Throwable] = None
  )

  /** Logs `worker`'s events through `logger` while in use (see [[WorkerLog]]), from a subscription
    * with room for `buffer` events.
    */
  def resource[F[_]: Async](
      worker: Worker[F],
      logger: SelfAwareStructuredLogger[F],
      buffer: Int = Worker.eventBuffer
  ): Resource[F, Unit] =
    Resource.eval(enabled(logger)).flatMap { on =>
      worker.subscribe(buffer, e => on(levelOf(e))).flatMap { events =>
        events
          .evalMap(e => write(logger, entry(worker.id, e)).handleError(_ => ()))
          .compile
          .drain
          .background
          .void
      }
    }

  /** [[resource]] with the logger named [[loggerName]] from the application's `LoggerFactory`. */
  def fromFactory[F[_]: Async: LoggerFactory](
      worker: Worker[F],
      buffer: Int = Worker.eventBuffer
  ): Resource[F, Unit] =
    resource(worker, LoggerFactory[F].getLoggerFromName(loggerName), buffer)

  /** The line for `event` of the worker named `worker`. */
  def entry(worker: String, event: WorkerEvent): Entry =
    val base = Map("worker" -> worker)
    def of(job: Job) = base ++ Map(
      "queue" -> job.queue,
      "kind" -> job.kind,
      "job_id" -> job.id.toString,
      "attempt" -> job.attempt.toString,
      "max_attempts" -> job.maxAttempts.toString
    )
    val level = levelOf(event)
    event match
      case WorkerEvent.Claimed(jobs, took) =>
        val queue = jobs.headOption.fold(Map.empty[String, String])(j => Map("queue" -> j.queue))
        Entry(
          level,
          "claimed jobs",
          base ++ queue ++ Map("jobs" -> jobs.size.toString, "duration_ms" -> millis(took))
        )
      case WorkerEvent.Started(job) => Entry(level, "job started", of(job))
      case WorkerEvent.Succeeded(job, took) =>
        Entry(level, "job succeeded", of(job) + ("duration_ms" -> millis(took)))
      case f @ WorkerEvent.Failed(job, error, retryIn) =>
        val again = retryIn.fold(Map.empty[String, String])(d => Map("retry_in_ms" -> millis(d)))
        val message =
          if f.willRetry then "job attempt failed, retrying" else "job attempt failed, none left"
        Entry(level, message, of(job) ++ again, Some(error))
      case WorkerEvent.Discarded(job, reason) =>
        Entry(level, "job discarded", of(job) + ("reason" -> reason))
      case WorkerEvent.Snoozed(job, after) =>
        Entry(level, "job snoozed", of(job) + ("snooze_ms" -> millis(after)))
      case WorkerEvent.Cancelled(job, CancelReason.CancelledInQueue) =>
        Entry(level, "job cancelled in the queue, its handler interrupted", of(job))
      case WorkerEvent.Cancelled(job, CancelReason.LeaseLost) =>
        Entry(level, "job no longer held (lease lost), its handler interrupted", of(job))
      case WorkerEvent.Acknowledged(batch, w, took) =>
        Entry(
          level,
          if w.rejected > 0 then "batch written, some writes refused" else "batch written",
          base ++ Map(
            "jobs" -> batch.toString,
            "completed" -> w.completed.toString,
            "retried" -> w.retried.toString,
            "discarded" -> w.discarded.toString,
            "snoozed" -> w.snoozed.toString,
            "rejected" -> w.rejected.toString,
            "duration_ms" -> millis(took)
          )
        )
      case WorkerEvent.UpkeepError(part, error, attempt) =>
        Entry(
          level,
          "statement failed, trying again",
          base ++ Map("part" -> part.toString.toLowerCase, "attempt" -> attempt.toString),
          Some(error)
        )
      case WorkerEvent.ConnectionLost(role) =>
        Entry(level, "connection lost, reopening it", base + ("role" -> role))
      case WorkerEvent.Lagged(dropped) =>
        Entry(
          level,
          "events not logged: the log fell behind",
          base + ("dropped" -> dropped.toString)
        )

  /** The level of `event`'s line (see [[WorkerLog]]). */
  def levelOf(event: WorkerEvent): Level = event match
    case _: WorkerEvent.Started      => Level.Trace
    case a: WorkerEvent.Acknowledged => if a.written.rejected > 0 then Level.Info else Level.Trace
    case _: WorkerEvent.Claimed | _: WorkerEvent.Succeeded | _: WorkerEvent.Snoozed => Level.Debug
    case _: WorkerEvent.Failed                                                      => Level.Info
    case WorkerEvent.Cancelled(_, CancelReason.CancelledInQueue)                    => Level.Info
    case _: WorkerEvent.Cancelled | _: WorkerEvent.Discarded                        => Level.Warn
    case _: WorkerEvent.UpkeepError | _: WorkerEvent.ConnectionLost | _: WorkerEvent.Lagged =>
      Level.Warn

  private def enabled[F[_]: Async](logger: SelfAwareStructuredLogger[F]): F[Level => Boolean] =
    (logger.isTraceEnabled, logger.isDebugEnabled, logger.isInfoEnabled, logger.isWarnEnabled)
      .mapN { (t, d, i, w) =>
        {
          case Level.Trace => t
          case Level.Debug => d
          case Level.Info  => i
          case Level.Warn  => w
        }
      }

  private def write[F[_]](logger: SelfAwareStructuredLogger[F], e: Entry): F[Unit] =
    (e.level, e.error) match
      case (Level.Trace, None)    => logger.trace(e.context)(e.message)
      case (Level.Trace, Some(t)) => logger.trace(e.context, t)(e.message)
      case (Level.Debug, None)    => logger.debug(e.context)(e.message)
      case (Level.Debug, Some(t)) => logger.debug(e.context, t)(e.message)
      case (Level.Info, None)     => logger.info(e.context)(e.message)
      case (Level.Info, Some(t))  => logger.info(e.context, t)(e.message)
      case (Level.Warn, None)     => logger.warn(e.context)(e.message)
      case (Level.Warn, Some(t))  => logger.warn(e.context, t)(e.message)

  // Milliseconds with three decimals (microseconds), as a log search compares them.
  private def millis(d: FiniteDuration): String =
    String.format(java.util.Locale.ROOT, "%.3f", d.toNanos / 1e6)
