package weir.postgres.queue

import java.time.Instant
import scala.concurrent.duration.FiniteDuration

/** A job as a worker holds it after a claim: `attempt` (1 for the first) is its fencing token:
  * completing, failing or renewing it applies only while the job is still running under this
  * attempt (see [[Completer]]). `kind` says what its payload is ([[JobKind]]; `default` for a job
  * enqueued without one), and so which of a worker's [[JobHandlers]] runs it. `timeout` is the
  * job's own ([[NewJob.withTimeout]]): the worker interrupts a handler that runs longer.
  */
final case class Job(
    id: Long,
    queue: String,
    payload: String,
    priority: Int,
    runAt: Instant,
    attempt: Int,
    maxAttempts: Int,
    kind: String = NewJob.defaultKind,
    timeout: Option[FiniteDuration] = None
):

  /** The (id, attempt) pair that fences every write about this claim. */
  def claim: Job.Claim = Job.Claim(id, attempt)

object Job:

  /** One claim of one job: the job and the attempt it runs under. */
  final case class Claim(id: Long, attempt: Int)

/** The states a job row goes through (column `state`). */
enum JobState(val sql: String):
  /** Waiting to be claimed (at or after its `run_at`): new, retried, or back from a dead worker. */
  case Available extends JobState("available")

  /** Claimed by a worker, under a lease that its heartbeat renews. */
  case Running extends JobState("running")

  /** Done; deleted or archived by the retention sweep after the retention period. */
  case Completed extends JobState("completed")

  /** Failed its last attempt: kept, listable, and re-drivable ([[QueueAdmin.retryDiscarded]]). */
  case Discarded extends JobState("discarded")

  /** Cancelled before it completed; never claimed again. */
  case Cancelled extends JobState("cancelled")

object JobState:
  /** The state named `sql` (as stored). */
  def parse(sql: String): Option[JobState] = values.find(_.sql == sql)
