package weir.postgres.queue

import scala.concurrent.duration.*
import weir.engine.RetryPolicy

/** How a worker uses the queue, as one immutable value.
  *
  * Defaults ([[QueueSettings.default]]): queue `default`; claims of up to 100 jobs; leases of 30 s
  * renewed every 10 s; a poll every 1 s when no notification comes; completions written in batches
  * of up to 5 000 (as many as queued up while the previous batch was written); failed attempts
  * retried after full-jitter exponential backoff from 1 s doubling up to 1 h; the lease reaper
  * every 1 s; finished jobs kept 24 h, then deleted 10 000 at a time; reconnection after 100 ms
  * doubling up to 5 s.
  *
  * Every `withX` that can be wrong returns `Left` naming the value; none throws.
  */
final case class QueueSettings private (
    queue: String,
    claimBatch: Int,
    lease: FiniteDuration,
    heartbeat: FiniteDuration,
    poll: FiniteDuration,
    completionBatch: Int,
    backoff: RetryPolicy,
    reapEvery: FiniteDuration,
    retention: FiniteDuration,
    retentionBatch: Int,
    archive: Boolean,
    reconnect: RetryPolicy
):

  /** Jobs come from queue `name`; `Left` when it is empty. */
  def withQueue(name: String): Either[String, QueueSettings] =
    if name.isEmpty then Left("the queue name must not be empty") else Right(copy(queue = name))

  /** Claim up to `n` jobs in one statement; `Left` unless positive. */
  def withClaimBatch(n: Int): Either[String, QueueSettings] =
    if n < 1 then Left(s"the claim batch must be positive, got $n") else Right(copy(claimBatch = n))

  /** A claimed job's lease lasts `lease` and is renewed every `heartbeat`; `Left` unless `0 <
    * heartbeat < lease`.
    */
  def withLease(lease: FiniteDuration, heartbeat: FiniteDuration): Either[String, QueueSettings] =
    if heartbeat <= Duration.Zero then Left(s"the heartbeat must be positive, got $heartbeat")
    else if heartbeat >= lease then
      Left(s"the heartbeat ($heartbeat) must be shorter than the lease ($lease)")
    else Right(copy(lease = lease, heartbeat = heartbeat))

  /** An idle worker looks for jobs every `d` even without a notification; `Left` unless positive.
    */
  def withPoll(d: FiniteDuration): Either[String, QueueSettings] =
    if d <= Duration.Zero then Left(s"the poll interval must be positive, got $d")
    else Right(copy(poll = d))

  /** Completions are written `n` at most per statement (see [[Completer]]). */
  def withCompletions(n: Int): Either[String, QueueSettings] =
    if n < 1 then Left(s"the completion batch must be positive, got $n")
    else Right(copy(completionBatch = n))

  /** A failed attempt is retried after a delay drawn by `policy`
    * ([[weir.engine.RetryPolicy.delay]]; its `maxAttempts` is not used: each job carries its own).
    */
  def withBackoff(policy: RetryPolicy): QueueSettings = copy(backoff = policy)

  /** Expired leases are looked for every `d`; `Left` unless positive. */
  def withReapEvery(d: FiniteDuration): Either[String, QueueSettings] =
    if d <= Duration.Zero then Left(s"the reaper interval must be positive, got $d")
    else Right(copy(reapEvery = d))

  /** Completed and cancelled jobs are kept `d`, then removed `batch` at a time, moved to
    * `weir.jobs_archive` when `archive`.
    */
  def withRetention(
      d: FiniteDuration,
      batch: Int,
      archive: Boolean
  ): Either[String, QueueSettings] =
    if d < Duration.Zero then Left(s"the retention must not be negative, got $d")
    else if batch < 1 then Left(s"the retention batch must be positive, got $batch")
    else Right(copy(retention = d, retentionBatch = batch, archive = archive))

  /** Lost connections are reopened after delays drawn by `policy` (full jitter; unlimited tries).
    */
  def withReconnect(policy: RetryPolicy): QueueSettings = copy(reconnect = policy)

object QueueSettings:

  /** weir's defaults (see [[QueueSettings]]). */
  val default: QueueSettings = QueueSettings(
    queue = NewJob.defaultQueue,
    claimBatch = 100,
    lease = 30.seconds,
    heartbeat = 10.seconds,
    poll = 1.second,
    completionBatch = 5000,
    backoff = RetryPolicy.exponential(2, 1.second, 1.hour).toOption.get,
    reapEvery = 1.second,
    retention = 24.hours,
    retentionBatch = 10000,
    archive = false,
    reconnect = RetryPolicy.exponential(2, 100.millis, 5.seconds).toOption.get
  )
