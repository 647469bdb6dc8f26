package weir.postgres.queue

import java.time.Instant
import weir.{Attempts, ConfigError}

/** A job to enqueue: its queue, payload (any text; JSON is stored as its text and can be read back
  * with `payload::jsonb`), priority (lower runs first), when it may run, how many attempts it gets,
  * an optional unique key (while a job with the same queue and key is available or running, a
  * second one is not inserted), and its kind (what the payload is: [[JobKind]] makes typed jobs).
  *
  * Defaults ([[NewJob.apply]]): queue `default`, priority 0, run at once, 25 attempts, no key, kind
  * `default`.
  */
final case class NewJob private (
    queue: String,
    payload: String,
    priority: Int,
    runAt: Option[Instant],
    maxAttempts: Attempts,
    uniqueKey: Option[String],
    kind: String
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

  /** The same job with a unique key (see [[NewJob]]). */
  def withUniqueKey(key: String): NewJob = copy(uniqueKey = Some(key))

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

  // A job of a kind already checked non-empty ([[JobKind]]).
  private[queue] def ofKind(kind: String, payload: String): NewJob =
    new NewJob(defaultQueue, payload, 0, None, defaultMaxAttempts, None, kind)
