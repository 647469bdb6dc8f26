package weir.engine

/** What a task that failed for good is counted under ([[Snapshot.failed]],
  * [[TaskOutcome.failureClass]]). Cancelled tasks and tasks never started are not failures and have
  * no class: the statistics count them apart.
  */
enum FailureClass:

  /** The last attempt ran past the per-task timeout ([[EngineSettings.withTaskTimeout]]). */
  case TimedOut

  /** The last attempt raised an error of this class (its simple class name). */
  case Raised(errorClass: String)

  /** The class a [[Classified]] error named itself: an HTTP client's `refused` or `status-503`. */
  case Named(name: String)

  /** How reports write it: `timeout`, the error's class name, or the name it gave. */
  def label: String = this match
    case TimedOut           => "timeout"
    case Raised(errorClass) => errorClass
    case Named(name)        => name

object FailureClass:

  /** The class `error` is counted under: [[TimedOut]] for a [[TaskTimeout]], the name a
    * [[Classified]] error gives, else the error's simple class name.
    */
  def of(error: Throwable): FailureClass = error match
    case _: TaskTimeout => TimedOut
    case c: Classified  => Named(c.failureClass)
    case _ =>
      val simple = error.getClass.getSimpleName
      Raised(if simple.isEmpty then error.getClass.getName else simple)
