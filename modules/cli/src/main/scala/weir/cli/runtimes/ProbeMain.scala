package weir.cli.runtimes

import scala.concurrent.duration.*
import scala.util.{Failure, Success, Try}
import weir.cli.common.RuntimeSyntax
import weir.lab.runtimes.{Burst, Probe, ProbeResult}

/** The main class of a probe JVM, forked by [[Fork]] for every cell of `weir runtimes`: `ProbeMain
  * RUNTIME BURST PROCESSES CYCLES WARM_UP_CALLS ROUNDS STALL_MS`.
  *
  * It reads its arguments into a [[weir.lab.runtimes.Probe]] (the lab's experiment: cold burst,
  * warm-up, timed bursts, each watched from this, the main, thread), prints the one
  * [[weir.lab.runtimes.ProbeResult]] line it measured on stdout and halts the JVM at once, without
  * waiting for threads that may be stuck for good.
  */
object ProbeMain:

  def main(args: Array[String]): Unit =
    val result = Try(parse(args)).flatMap(probe => Try(probe.measure())) match
      case Success(result) => result
      case Failure(error) =>
        ProbeResult.nothing(
          ProbeResult.Outcome.Failed(Option(error.getMessage).getOrElse(error.toString))
        )
    System.out.println(result.encode)
    System.out.flush()
    Runtime.getRuntime.halt(0)

  private def parse(args: Array[String]): Probe =
    def fail(msg: String) = throw new IllegalArgumentException(msg)
    args.toList match
      case runtime :: burst :: processes :: cycles :: warmUp :: rounds :: stall :: Nil =>
        Probe(
          RuntimeSyntax.parse(runtime).fold(fail, identity),
          Burst.named(burst).fold(fail, identity),
          processes.toInt,
          cycles.toInt,
          warmUp.toLong,
          rounds.toInt,
          stall.toLong.millis
        )
      case _ =>
        fail("usage: ProbeMain RUNTIME BURST PROCESSES CYCLES WARM_UP_CALLS ROUNDS STALL_MS")
