package weir.postgres.queue

import java.time.Instant
import scala.concurrent.duration.FiniteDuration
import weir.{Attempts, ConfigError, PositiveDuration}

/** A job to enqueue: its queue, payload (any text; JSON is stored as its text and can be read back
  * with `payload::jsonb`), priority (lower runs first), when it may run, how many attempts it gets,
  * an optional unique key (while a job with the same queue and key is available or running, a
  * second one is not inserted; with a period, not either while one was inserted in the same period,
  * whatever its state: [[withUniqueKey(key:String,period* withUniqueKey]]), its kind (what the
  * payload is: [[JobKind]] makes typed jobs) and its own timeout ([[withTimeout]]).
  *
  * Defaults ([[NewJob.apply]]): queue `default`, priority 0, run at once, 25 attempts, no key, kind
  * `default`, no timeout of its own.
  */
final case class NewJob private (
    queue: String,
    payload: String,
    priority: Int,
    runAt: Option[Instant],
    maxAttempts: Attempts,
    uniqueKey: Option[String],
    kind: String,
    timeout: Option[FiniteDuration] = None,
    uniquePeriod: Option[FiniteDuration] = None
):

  /** The same job on queue `name`; `Left` when the name is empty. */
  def withQueue(name: String): Either[ConfigError, NewJob] =
    if name.isEmpty then Left(ConfigError.Invalid("queue name", "must not be empty"))
    else Right(copy(queue = name))

  /** The same job at priority `p` (lower runs first); `Left` outside -32768..32767. */
  def withPriority(p: Int): Either[ConfigError, NewJob] =
    if p < Short.MinValue || p > Short.MaxValue then
      Left(ConfigError.OutOfRange("priority", p.toString, s"${Short.MinValue}..${Short.MaxValue}"))
    else Right(copy(priority = p))

  /** The same job, not claimed before `at` (a scheduled job). */
  def withRunAt(at: Instant): NewJob = copy(runAt = Some(at))

  /** The same job with `n` attempts in all before it is discarded. */
  def withMaxAttempts(n: Attempts): NewJob = copy(maxAttempts = n)

  /** The same job with `text` as its payload (a template's settings for many payloads). */
  def withPayload(text: String): NewJob = copy(payload = text)

  /** The same job of kind `name` (see [[JobKind]]); `Left` when the name is empty. */
  def withKind(name: String): Either[ConfigError, NewJob] =
    if name.isEmpty then Left(ConfigError.Invalid("job kind", "must not be empty"))
    else Right(copy(kind = name))

  /** The same job with a unique key, held while a job of the same queue and key is unfinished
    * (available or running): enqueueing a second one then inserts nothing ([[Enqueued.Existing]]).
    */
  def withUniqueKey(key: String): NewJob = copy(uniqueKey = Some(key), uniquePeriod = None)

  /** The same job with a unique key held while a job of the same queue and key is unfinished and,
    * beyond that, over a period: the periods of `period` aligned to the Unix epoch (by the server's
    * clock at insert, as River's `ByPeriod`), a second job of the same queue and key inserted in
    * the same period is skipped whatever became of the first (completed, discarded, cancelled), as
    * long as the first's row is kept (the retention sweep deletes finished jobs after
    * [[QueueSettings.retention]]). Whole milliseconds: a finer period is rounded up to the next.
    */
  def withUniqueKey(key: String, period: PositiveDuration): NewJob =
    copy(uniqueKey = Some(key), uniquePeriod = Some(NewJob.wholeMillis(period)))

  /** The same job with a timeout of its own: a worker interrupts its handler once an attempt has
    * run `after` (whole milliseconds, rounded up) and fails the attempt with [[JobTimedOut]]
    * (retried after the backoff, as any failure). The worker's own per-attempt timeout still
    * applies too: the shorter one cuts the attempt. A timeout of the job's kind
    * ([[JobHandlers.Entry.withTimeout]]) gives way to this one.
    */
  def withTimeout(after: PositiveDuration): NewJob = copy(timeout = Some(NewJob.wholeMillis(after)))

object NewJob:

  /** The queue jobs go to unless told otherwise. */
  val defaultQueue: String = "default"

  /** The kind of a job enqueued without one. */
  val defaultKind: String = "default"

  /** Attempts a job gets unless told otherwise (River's default too). */
  val defaultMaxAttempts: Attempts = Attempts(25)

  /** A job carrying `payload` with the defaults (see [[NewJob]]). */
  def apply(payload: String): NewJob =
    new NewJob(defaultQueue, payload, 0, None, defaultMaxAttempts, None, defaultKind)

  // At least a millisecond, rounded up to whole milliseconds (the columns hold milliseconds).
  private[queue] def wholeMillis(d: PositiveDuration): FiniteDuration =
    FiniteDuration(math.max(1L, (d.toNanos + 999999L) / 1000000L), "ms")

  // A job of a kind already checked non-empty ([[JobKind]]).
  private[queue] def ofKind(kind: String, payload: String): NewJob =
    new NewJob(defaultQueue, payload, 0, None, defaultMaxAttempts, None, kind)
