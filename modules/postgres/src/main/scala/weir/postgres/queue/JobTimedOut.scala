package weir.postgres.queue

import scala.concurrent.duration.FiniteDuration

/** A handler ran longer than its job's timeout ([[NewJob.withTimeout]]) or its kind's
  * ([[JobHandlers.Entry.withTimeout]]) and was interrupted: the attempt fails with this message
  * (`last_error` "timeout: job 42 (attempt 1) timed out after 30000 ms"), retried after the backoff
  * as any failure, then discarded once the job's attempts are used. Counted under the failure class
  * `timeout`, as the worker's own per-attempt timeout is.
  */
final case class JobTimedOut(jobId: Long, attempt: Int, after: FiniteDuration)
    extends RuntimeException(
      s"job $jobId (attempt $attempt) timed out after ${after.toMillis} ms",
      null,
      false,
      false
    )
    with weir.engine.Classified:
  def failureClass: String = "timeout"
  override def overload: Boolean = false
