package weir.postgres.queue

import cats.data.NonEmptyList
import weir.{Attempts, Capacity, ConfigError, NonNegativeDuration, PositiveDuration}
import weir.engine.RetryPolicy

/** How a worker uses the queue, as one immutable value.
  *
  * '''Queues.''' A worker serves one queue or several ([[withQueues]]) on the same connections: it
  * claims from each in turn, a batch at a time ([[Worker]]); everything else here (claim batch,
  * lease, backoff, ...) is shared by all of them.
  *
  * Defaults ([[QueueSettings.default]]): queue `default`; claims of up to 100 jobs; leases of 30 s
  * renewed every 10 s; a poll every 1 s when no notification comes; completions written in batches
  * of up to 5 000 (as many as queued up while the previous batch was written); failed attempts
  * retried after full-jitter exponential backoff from 1 s doubling up to 1 h; the lease reaper
  * every 1 s; finished jobs kept 24 h, then deleted 10 000 at a time; reconnection after 100 ms
  * doubling up to 5 s; the schema `weir`.
  *
  * Every `withX` is total where its values are validated types ([[weir.Capacity]],
  * [[weir.PositiveDuration]], [[weir.NonNegativeDuration]]); the queue's name and the lease with
  * its heartbeat return `Left(ConfigError)` naming what is wrong; none throws.
  */
final case class QueueSettings private (
    queues: NonEmptyList[String],
    claimBatch: Capacity,
    lease: PositiveDuration,
    heartbeat: PositiveDuration,
    poll: PositiveDuration,
    completionBatch: Capacity,
    backoff: RetryPolicy,
    reapEvery: PositiveDuration,
    retention: NonNegativeDuration,
    retentionBatch: Capacity,
    archive: Boolean,
    reconnect: RetryPolicy,
    schema: QueueSchemaName
):

  /** The first of [[queues]]: the queue of a worker that serves one. */
  def queue: String = queues.head

  /** Jobs come from queue `name` alone; `Left` when it is empty. */
  def withQueue(name: String): Either[ConfigError, QueueSettings] =
    withQueues(NonEmptyList.one(name))

  /** Jobs come from the queues `names`, claimed in turn (see [[Worker]]); `Left` when a name is
    * empty or given twice.
    */
  def withQueues(names: NonEmptyList[String]): Either[ConfigError, QueueSettings] =
    if names.exists(_.isEmpty) then Left(ConfigError.Invalid("queue name", "must not be empty"))
    else
      names.toList.diff(names.toList.distinct).headOption match
        case Some(twice) =>
          Left(ConfigError.Invalid("queue names", s"('$twice') must not repeat a queue"))
        case None => Right(copy(queues = names))

  /** Claim up to `n` jobs in one statement. */
  def withClaimBatch(n: Capacity): QueueSettings = copy(claimBatch = n)

  /** A claimed job's lease lasts `lease` and is renewed every `heartbeat`; `Left` unless `heartbeat
    * < lease`.
    */
  def withLease(
      lease: PositiveDuration,
      heartbeat: PositiveDuration
  ): Either[ConfigError, QueueSettings] =
    if heartbeat >= lease then
      Left(
        ConfigError.Invalid("heartbeat", s"($heartbeat) must be shorter than the lease ($lease)")
      )
    else Right(copy(lease = lease, heartbeat = heartbeat))

  /** An idle worker looks for jobs every `d` even without a notification. */
  def withPoll(d: PositiveDuration): QueueSettings = copy(poll = d)

  /** Completions are written `n` at most per statement (see [[Completer]]). */
  def withCompletions(n: Capacity): QueueSettings = copy(completionBatch = n)

  /** A failed attempt is retried after a delay drawn by `policy`
    * ([[weir.engine.RetryPolicy.delay]]; its `maxAttempts` is not used: each job carries its own).
    */
  def withBackoff(policy: RetryPolicy): QueueSettings = copy(backoff = policy)

  /** Expired leases are looked for every `d`. */
  def withReapEvery(d: PositiveDuration): QueueSettings = copy(reapEvery = d)

  /** Completed and cancelled jobs are kept `d`, then removed `batch` at a time, moved to
    * `weir.jobs_archive` when `archive`.
    */
  def withRetention(d: NonNegativeDuration, batch: Capacity, archive: Boolean): QueueSettings =
    copy(retention = d, retentionBatch = batch, archive = archive)

  /** The queue lives in the PostgreSQL schema `name` (default `weir`): every statement of the
    * worker, its notification channel and the migrations' record are that schema's
    * ([[QueueSchemaName]]; apply its migrations with `QueueSchema.migrate(session, name)`).
    */
  def withSchema(name: QueueSchemaName): QueueSettings = copy(schema = name)

  /** Lost connections are reopened after delays drawn by `policy` (full jitter; unlimited tries).
    */
  def withReconnect(policy: RetryPolicy): QueueSettings = copy(reconnect = policy)

object QueueSettings:

  /** weir's defaults (see [[QueueSettings]]). */
  val default: QueueSettings = QueueSettings(
    queues = NonEmptyList.one(NewJob.defaultQueue),
    claimBatch = Capacity(100),
    lease = PositiveDuration.seconds(30),
    heartbeat = PositiveDuration.seconds(10),
    poll = PositiveDuration.seconds(1),
    completionBatch = Capacity(5000),
    backoff = RetryPolicy
      .exponential(Attempts(2), NonNegativeDuration.seconds(1), NonNegativeDuration.hours(1)),
    reapEvery = PositiveDuration.seconds(1),
    retention = NonNegativeDuration.hours(24),
    retentionBatch = Capacity(10000),
    archive = false,
    reconnect = RetryPolicy
      .exponential(Attempts(2), NonNegativeDuration.millis(100), NonNegativeDuration.seconds(5)),
    schema = QueueSchemaName.default
  )
