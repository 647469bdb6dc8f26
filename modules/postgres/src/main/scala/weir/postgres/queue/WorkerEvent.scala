package weir.postgres.queue

import scala.concurrent.duration.FiniteDuration

/** Something a [[Worker]] did or met, as it happens: what a subscriber of [[Worker.events]] sees
  * (to log, to count, to trace). Events say what the worker saw, not what the database holds: a
  * [[WorkerEvent.Succeeded]] is published when the handler returned, before its completion is
  * written (and the write may still be refused by the fence, when the job was cancelled meanwhile);
  * the batch that writes it is a [[WorkerEvent.Acknowledged]].
  *
  * A job's outcomes: [[WorkerEvent.Succeeded]]; [[WorkerEvent.Failed]] with `willRetry` (a retry)
  * or, on its last attempt, followed by [[WorkerEvent.Discarded]]; [[WorkerEvent.Discarded]] alone
  * when its handler discarded it ([[JobControl.Discard]]); [[WorkerEvent.Snoozed]];
  * [[WorkerEvent.Cancelled]].
  */
sealed trait WorkerEvent

object WorkerEvent:

  /** One claim took `jobs` (never empty: an empty claim publishes nothing); its statement took
    * `took` (the claim latency: from sending it to holding its answer, a reconnection on a lost
    * connection included, not the backoff before a statement tried again after an error).
    */
  final case class Claimed(jobs: Vector[Job], took: FiniteDuration) extends WorkerEvent

  /** The handler of `job` starts. */
  final case class Started(job: Job) extends WorkerEvent

  /** The handler of `job` returned after `duration`; its completion is queued to be written. */
  final case class Succeeded(job: Job, duration: FiniteDuration) extends WorkerEvent

  /** The handler of `job` raised `error` (or timed out: a `TimeoutException`). The job runs again
    * after `retryIn` when it has attempts left (`None`: it was its last attempt, and a
    * [[Discarded]] follows).
    */
  final case class Failed(job: Job, error: Throwable, retryIn: Option[FiniteDuration])
      extends WorkerEvent:

    /** True when the job runs again (a retry, `retryIn` given); false for its last attempt. */
    def willRetry: Boolean = retryIn.isDefined

  /** `job` failed its last attempt and is discarded (listable and re-drivable with
    * [[QueueAdmin.retryDiscarded]]); `reason` is the error written with it.
    */
  final case class Discarded(job: Job, reason: String) extends WorkerEvent

  /** The handler of `job` put it off ([[JobControl.Snooze]]): it runs again `after` from now,
    * without using an attempt.
    */
  final case class Snoozed(job: Job, after: FiniteDuration) extends WorkerEvent

  /** One statement wrote a batch of `batch` results back ([[Completer]]: completions, failed
    * attempts, discards and snoozes, as many as had queued up while the one before ran); `written`
    * says what it did (a write refused by the fence is counted in `rejected`), and `took` is the
    * acknowledgement latency: the batch's statement, from sending it to its answer, its tries again
    * after an error and a reconnection included. Published after the batch is written, in the
    * completion writer's fiber.
    */
  final case class Acknowledged(batch: Int, written: Fenced.Written, took: FiniteDuration)
      extends WorkerEvent

  /** The worker learnt at a lease renewal that `job` is no longer running under its claim, and
    * interrupted its handler if it had started (nothing is written back for it). See
    * [[CancelReason]].
    */
  final case class Cancelled(job: Job, reason: CancelReason) extends WorkerEvent

  /** A statement of the worker's `part` failed with `error` (not a lost connection: those are
    * [[ConnectionLost]]) for the `attempt`-th time in a row; it is tried again after a backoff.
    */
  final case class UpkeepError(part: UpkeepPart, error: Throwable, attempt: Int) extends WorkerEvent

  /** The worker's connection in `role` (claim, ack, upkeep, listen) was lost; it is being reopened.
    */
  final case class ConnectionLost(role: String) extends WorkerEvent

  /** This subscriber's buffer was full: `dropped` events were not delivered to it (see
    * [[Worker.subscribe]]). Published to that subscriber alone, before its next event.
    */
  final case class Lagged(dropped: Long) extends WorkerEvent

/** Why a worker stopped a job it had claimed. */
enum CancelReason:

  /** The job was cancelled ([[QueueAdmin.cancel]], `weir queue cancel`). */
  case CancelledInQueue

  /** The job is no longer running under this worker's attempt for another reason: its lease ended
    * before it was renewed and the reaper took it back (it may run again elsewhere), or another
    * writer changed it.
    */
  case LeaseLost

/** The part of a worker whose statement failed ([[WorkerEvent.UpkeepError]]). */
enum UpkeepPart:

  /** Claiming jobs (or, with `untilEmpty`, asking whether any is left). */
  case Claim

  /** Renewing the leases of the jobs held. */
  case Heartbeat

  /** Writing completions and failed attempts back ([[Completer]]). */
  case Completion

  /** Ending expired leases ([[Maintenance.reap]]). */
  case Reaper

  /** Removing finished jobs past their retention ([[Maintenance.sweep]]). */
  case Sweep

  /** Enqueueing the periods of periodic jobs that are due ([[Schedules]]). */
  case Scheduler
