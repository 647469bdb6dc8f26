package weir.cli

import java.nio.file.Files
import java.util.concurrent.TimeUnit
import munit.Assertions.fail
import scala.concurrent.duration.FiniteDuration
import weir.cli.common.JavaCommand

/** A JVM of its own for a test: `main` with `options` and `args`, on the test's class path. */
object Forked:

  /** Runs it to its end, stdout discarded: its exit code and its stderr. Waiting is bounded only as
    * a guard: a process still running after `hang` fails the test (and is killed).
    */
  def run(
      options: List[String],
      main: String,
      args: List[String],
      hang: FiniteDuration
  ): (Int, String) =
    val err = Files.createTempFile("weir-forked-", ".err")
    // Deleted once the process has ended (or been killed) and its stderr read.
    try
      val process = new ProcessBuilder(JavaCommand(options, main, args)*)
        .redirectOutput(ProcessBuilder.Redirect.DISCARD)
        .redirectError(err.toFile)
        .start()
      (ended(process, hang, Files.readString(err)), Files.readString(err))
    finally Files.deleteIfExists(err): Unit

  /** `process`'s exit code once it ends; a test failure (the process killed) after `hang`, naming
    * `said` (what it wrote so far, read then).
    */
  def ended(process: Process, hang: FiniteDuration, said: => String): Int =
    if !process.waitFor(hang.toSeconds, TimeUnit.SECONDS) then
      process.destroyForcibly().waitFor()
      fail(s"still running after $hang: hung (stderr: $said)")
    process.exitValue
