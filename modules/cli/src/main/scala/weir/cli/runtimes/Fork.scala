package weir.cli.runtimes

import cats.effect.{IO, Resource}
import java.nio.file.Paths
import scala.io.Source
import weir.cli.common.RuntimeSyntax.label
import weir.runtime.RuntimePreset

/** Runs one cell of `weir runtimes` in a fresh JVM, so one runtime's threads, JIT warm-up and
  * memory never carry over into another's figures.
  *
  * The child is the same `java` as this JVM (JDK 21 or later, checked by [[check]]) with this JVM's
  * class path, `-Dcats.effect.tracing.mode=none` (virtual threads need it; every runtime gets it so
  * they are compared alike) and `-Xmx1g`; its stderr goes to ours, its result comes back on its
  * stdout. Cancelling kills the child.
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
    // JDK 23+ warns on stderr about Scala 3's use of sun.misc.Unsafe unless told it is allowed.
    val quiet =
      if Runtime.version().feature() >= 23 then List("--sun-misc-unsafe-memory-access=allow")
      else Nil
    val command =
      List(Paths.get(System.getProperty("java.home"), "bin", "java").toString) ++ quiet ++ List(
        "-Dcats.effect.tracing.mode=none",
        heap,
        "-cp",
        System.getProperty("java.class.path"),
        "weir.cli.runtimes.ProbeMain",
        runtime.label,
        burst.name,
        processes.toString,
        plan.cycles.toString,
        plan.warmUpCalls.toString,
        plan.rounds.toString,
        plan.stallAfter.toMillis.toString
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
