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

  /** The class name under which a failure is counted: the error's simple class name, `timeout` or
    * `not-started`; `None` for a success.
    */
  def failureClass: Option[String] = this match
    case Succeeded(_)  => None
    case Failed(error) => Some(TaskOutcome.className(error))
    case TimedOut(_)   => Some("timeout")
    case NotStarted    => Some("not-started")

object TaskOutcome:

  /** The name a failure is counted under: the class a [[Classified]] error names, else the error's
    * simple class name.
    */
  def className(error: Throwable): String = error match
    case c: Classified => c.failureClass
    case _ =>
      val simple = error.getClass.getSimpleName
      if simple.isEmpty then error.getClass.getName else simple
