package weir.postgres.queue

import scala.concurrent.duration.FiniteDuration
import weir.engine.Classified

/** What a handler may raise to end its job otherwise than by a failed attempt. The worker's
  * acknowledger recognises these ([[Worker.run]]): any other error fails the attempt (retried, then
  * discarded once the attempts are used).
  */
sealed abstract class JobControl(message: String)
    extends RuntimeException(message, null, false, false)
    with Classified:
  override def overload: Boolean = false

object JobControl:

  /** Ends the job for good at once, whatever attempts it has left: it becomes `discarded` with
    * `reason` as its `last_error` (listable and re-drivable, [[QueueAdmin.retryDiscarded]]), fenced
    * by its attempt as every write about a claim is. [[JobHandlers]] raises it for a job of a kind
    * it has no handler for.
    */
  final case class Discard(reason: String) extends JobControl(reason):
    def failureClass: String = "discarded"

  /** Puts the job off: it becomes available again `after` from now (the server's clock) without
    * using an attempt (its attempt number goes back by one, so its next claim runs under the same
    * number), fenced by its attempt and by the worker holding it. The engine counts the run as
    * failed (class `snoozed`); the queue does not: no error is recorded and no backoff applies.
    */
  final case class Snooze(after: FiniteDuration)
      extends JobControl(s"snoozed for ${after.toMillis} ms"):
    def failureClass: String = "snoozed"
