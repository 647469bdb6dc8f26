package weir.cli.common

import cats.effect.ExitCode

/** The exit codes every weir command uses, so scripts can trust them. */
object Exit:
  /** The job ran and met its goal. */
  val Ok: ExitCode = ExitCode.Success

  /** The job ran but did not succeed (a run failed or deadlocked, too many errors). */
  val Failed: ExitCode = ExitCode(1)

  /** The command line or an input file was wrong; nothing was run. */
  val BadInput: ExitCode = ExitCode(2)

  /** A fatal error of the JVM (out of memory, a stack overflow) ended the job; what it was applying
    * was rolled back, and the process ended ([[FatalExit]]). The code the JVM's own
    * `-XX:+ExitOnOutOfMemoryError` uses.
    */
  val Fatal: ExitCode = ExitCode(3)

  /** Stopped by Ctrl-C (128 + SIGINT). */
  val Interrupted: ExitCode = ExitCode(130)
