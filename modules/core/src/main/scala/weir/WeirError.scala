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

  /** A fatal error of the JVM (`cause`: an `OutOfMemoryError`, a `StackOverflowError` or another
    * `VirtualMachineError`, or a `LinkageError`), caught on the thread that threw it inside weir's
    * own effects and raised as an ordinary error: cats-effect would otherwise take it out of the
    * fiber (its fatal-error path shuts the runtime down, and nothing that waits on the fiber ever
    * hears of it, docs/adr/0013-apply-sql-speed.md, "Round 3"). The JVM may be short of memory when
    * this is raised: release what the failed work held, and end the process soon.
    */
  final case class Fatal(cause: Throwable) extends WeirError(null, cause):
    // Made when asked, not when raised: the error is made where memory may have just run out.
    override def getMessage: String = Fatal.describe(cause)

  object Fatal:

    /** What `cause` is, in words: `out of memory (java.lang.OutOfMemoryError: Java heap space)`. */
    def describe(cause: Throwable): String =
      val what = cause match
        case _: OutOfMemoryError   => "out of memory"
        case _: StackOverflowError => "stack overflow"
        case _                     => "fatal error"
      s"$what (${cause.getClass.getName}${Option(cause.getMessage).fold("")(": " + _)})"
