package weir

/** The failures weir itself reports. Each names what went wrong and what to do. */
sealed abstract class WeirError(message: String, cause: Throwable | Null = null)
    extends Exception(message, cause)

object WeirError:

  /** A handler failed on `task`; `cause` is what it raised. The run stops at the first one. */
  final case class TaskFailed(task: Any, cause: Throwable)
      extends WeirError(s"task $task failed: ${cause.getMessage}", cause)

  /** A runtime preset cannot run on this JVM (for example virtual threads before JDK 21). */
  final case class RuntimeUnavailable(reason: String) extends WeirError(reason)
