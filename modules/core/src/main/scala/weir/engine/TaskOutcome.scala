package weir.engine

import scala.concurrent.duration.FiniteDuration

/** How one task ended. A task cancelled in flight (the grace period of a stop ran out, or the run
  * was cancelled) has no outcome: the statistics count it as `cancelled`.
  */
enum TaskOutcome[+B]:

  /** The handler returned `value`. */
  case Succeeded(value: B)

  /** The last attempt raised `error` (its class is the failure's class in the statistics). */
  case Failed(error: Throwable)

  /** The last attempt ran past the per-task timeout `after` and was cancelled. */
  case TimedOut(after: FiniteDuration)

  /** The task had been taken from the source but not started when the run was stopped. */
  case NotStarted

  /** True for [[TaskOutcome.Succeeded]]. */
  def succeeded: Boolean = this match
    case Succeeded(_) => true
    case _            => false

  /** The class a failure is counted under ([[FailureClass]]); `None` for a success and for a task
    * never started (not a failure).
    */
  def failureClass: Option[FailureClass] = this match
    case Succeeded(_)  => None
    case Failed(error) => Some(FailureClass.of(error))
    case TimedOut(_)   => Some(FailureClass.TimedOut)
    case NotStarted    => None
