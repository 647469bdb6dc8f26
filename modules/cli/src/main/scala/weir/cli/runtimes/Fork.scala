package weir.cli.runtimes

import cats.effect.{IO, Resource}
import scala.io.Source
import weir.cli.common.JavaCommand
import weir.cli.common.RuntimeSyntax.label
import weir.runtime.RuntimePreset
import weir.lab.runtimes.{Burst, ProbeResult}

/** Runs one cell of `weir runtimes` in a fresh JVM, so one runtime's threads, JIT warm-up and
  * memory never carry over into another's figures.
  *
  * The child is a JVM like this one ([[weir.cli.common.JavaCommand]]: the same `java`, JDK 21 or
  * later, checked by [[check]]; cats-effect's tracing off, which virtual threads need) with
  * `-Xmx1g`; its stderr goes to ours, its result comes back on its stdout. Cancelling kills the
  * child.
  */
object Fork:

  /** Heap of every probe JVM. */
  val heap: String = "-Xmx1g"

  /** `Left` when this JVM cannot fork probes: `weir runtimes` needs JDK 21 or later. */
  def check: Either[String, Unit] =
    val version = Runtime.version().feature()
    if version >= RuntimePreset.virtualThreadsSince then Right(())
    else
      Left(
        s"weir runtimes needs JDK ${RuntimePreset.virtualThreadsSince} or later to fork its probes; this JVM is $version " +
          s"(${System.getProperty("java.home")}). Set JAVA_HOME to a newer JDK."
      )

  /** Forks a probe JVM for `runtime` × `burst` × `processes` with the plan's cycles, warm-up,
    * rounds and stall limit, and returns what it measured.
    */
  def probe(
      plan: RuntimesPlan,
      runtime: RuntimePreset,
      burst: Burst,
      processes: Int
  ): IO[ProbeResult] =
    val command = JavaCommand(
      List(heap),
      "weir.cli.runtimes.ProbeMain",
      List(
        runtime.label,
        burst.name,
        processes.toString,
        plan.cycles.toString,
        plan.warmUpCalls.toString,
        plan.rounds.toString,
        plan.stallAfter.toMillis.toString
      )
    )
    val child = Resource.make(
      IO.blocking(
        new ProcessBuilder(command*).redirectError(ProcessBuilder.Redirect.INHERIT).start()
      )
    )(process => IO.blocking(process.destroyForcibly()).void)
    child.use { process =>
      for
        lines <- IO.interruptible(Source.fromInputStream(process.getInputStream).getLines().toList)
        code <- IO.interruptible(process.waitFor())
      yield lines.flatMap(ProbeResult.decode).headOption.getOrElse {
        ProbeResult.nothing(
          ProbeResult.Outcome.Failed(s"the probe JVM exited with $code and no result")
        )
      }
    }
