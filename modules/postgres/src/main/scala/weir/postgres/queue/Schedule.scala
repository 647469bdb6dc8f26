package weir.postgres.queue

import java.time.Instant
import weir.{Attempts, ConfigError, PositiveDuration}

/** A periodic job: every period of its [[Schedule.Spec]] (a fixed interval, or a [[Cron]]
  * expression), one job with its payload is put in its queue, whatever the number of workers (see
  * [[Schedules]]). Made by [[Schedule.every]] or [[Schedule.cron]], which validate; the `withX`
  * methods are total where their values are validated types, and return `Left(ConfigError)`
  * otherwise.
  *
  * Defaults: queue `default`, kind `default`, priority 0, 25 attempts (those of [[NewJob]]).
  */
final case class Schedule private (
    name: String,
    spec: Schedule.Spec,
    payload: String,
    queue: String,
    priority: Int,
    maxAttempts: Attempts,
    kind: String = NewJob.defaultKind
):

  /** The same schedule putting its jobs in queue `name`; `Left` when the name is empty. */
  def withQueue(name: String): Either[ConfigError, Schedule] =
    if name.isEmpty then Left(ConfigError.Invalid("queue name", "must not be empty"))
    else Right(copy(queue = name))

  /** Its jobs at priority `p` (lower runs first); `Left` outside -32768..32767. */
  def withPriority(p: Int): Either[ConfigError, Schedule] =
    NewJob("").withPriority(p).map(_ => copy(priority = p))

  /** Its jobs get `n` attempts in all. */
  def withMaxAttempts(n: Attempts): Schedule = copy(maxAttempts = n)

  /** Its jobs are of kind `name` (see [[JobKind]]: a worker's [[JobHandlers]] run them with that
    * kind's handler); `Left` when the name is empty.
    */
  def withKind(name: String): Either[ConfigError, Schedule] =
    NewJob("").withKind(name).map(_ => copy(kind = name))

  /** Its jobs carry `text`. */
  def withPayload(text: String): Schedule = copy(payload = text)

object Schedule:

  /** When a schedule's periods start (all in UTC, to the millisecond). */
  enum Spec:

    /** Periods of `every` milliseconds aligned to the Unix epoch: each starts at a multiple of
      * `every` since 1970-01-01T00:00Z, so that every worker computes the same starts.
      */
    case Every(every: PositiveDuration)

    /** A period starts at each fire time of `cron` and lasts until the next one. */
    case Cron(cron: weir.postgres.queue.Cron)

    /** The start of the period `at` falls in (the latest start at or before `at`); `None` for a
      * cron expression that has not fired in the last four years.
      */
    def current(at: Instant): Option[Instant] = this match
      case Every(d) =>
        val ms = d.toMillis
        Some(Instant.ofEpochMilli(Math.floorDiv(at.toEpochMilli, ms) * ms))
      case Cron(c) => c.previous(at)

    /** The start of the first period after `at`; `None` for a cron expression that does not fire in
      * the next four years.
      */
    def next(at: Instant): Option[Instant] = this match
      case Every(d) =>
        val ms = d.toMillis
        Some(Instant.ofEpochMilli((Math.floorDiv(at.toEpochMilli, ms) + 1) * ms))
      case Cron(c) => c.next(at)

    /** As the schedules table and `weir queue schedules` show it: `every 1m`, `cron 0 3 * * *`. */
    def show: String = this match
      case Every(d) => s"every ${Spec.showMillis(d.toMillis)}"
      case Cron(c)  => s"cron ${c.expression}"

  object Spec:

    /** `ms` in the largest unit that divides it (`90s`, `1m`, `250ms`, `2h`): what `--every` reads.
      */
    def showMillis(ms: Long): String =
      if ms % 3600000L == 0 then s"${ms / 3600000L}h"
      else if ms % 60000L == 0 then s"${ms / 60000L}m"
      else if ms % 1000L == 0 then s"${ms / 1000L}s"
      else s"${ms}ms"

  /** A schedule named `name` putting a job with `payload` in the default queue every `every`;
    * `Left` when the name is empty or `every` is not a whole number of milliseconds.
    */
  def every(name: String, every: PositiveDuration, payload: String): Either[ConfigError, Schedule] =
    if every.toNanos % 1000000L != 0 then
      Left(ConfigError.Invalid("every", s"must be a whole number of milliseconds, got $every"))
    else named(name, Spec.Every(every), payload)

  /** A schedule named `name` putting a job with `payload` in the default queue at each fire time of
    * the cron `expression` (see [[weir.postgres.queue.Cron]]); `Left` when the name is empty or the
    * expression is invalid (the message names the field at fault).
    */
  def cron(name: String, expression: String, payload: String): Either[ConfigError, Schedule] =
    weir.postgres.queue.Cron.parse(expression).flatMap(c => named(name, Spec.Cron(c), payload))

  /** A schedule of `spec` (see [[every]] and [[cron]]). */
  def of(name: String, spec: Spec, payload: String): Either[ConfigError, Schedule] =
    spec match
      case Spec.Every(d) => every(name, d, payload)
      case Spec.Cron(_)  => named(name, spec, payload)

  private def named(name: String, spec: Spec, payload: String): Either[ConfigError, Schedule] =
    if name.trim.isEmpty then Left(ConfigError.Invalid("schedule name", "must not be empty"))
    else Right(Schedule(name, spec, payload, NewJob.defaultQueue, 0, NewJob.defaultMaxAttempts))
