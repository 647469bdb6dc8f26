package weir.cli.runtimes

import cats.effect.IO
import cats.effect.unsafe.IORuntime
import java.lang.management.ManagementFactory
import java.nio.file.{Files, Paths}
import java.util.concurrent.TimeoutException
import java.util.concurrent.atomic.AtomicLong
import scala.concurrent.Await
import scala.concurrent.duration.*
import scala.jdk.CollectionConverters.*
import scala.util.{Failure, Success, Try}
import weir.cli.common.RuntimeSyntax
import weir.runtime.RuntimePreset

/** The main class of a probe JVM, forked by [[Fork]] for every cell of `weir runtimes`: `ProbeMain
  * RUNTIME BURST PROCESSES CYCLES WARM_UP_CALLS ROUNDS STALL_MS`.
  *
  * It builds the runtime and runs the burst on it again and again, as seed 004's long-running JVM
  * did: a first, cold burst; warm-up bursts until `WARM_UP_CALLS` calls have been made in all (the
  * cold burst's included), so that the JIT has compiled the paths being compared; then `ROUNDS`
  * timed bursts. Each burst is watched from the main thread (a plain platform thread outside the
  * runtime, so it keeps running when every runtime thread is blocked); a burst with no finished
  * call for `STALL_MS` ends the probe as deadlocked. It prints one [[ProbeResult]] line on stdout
  * and halts the JVM at once, without waiting for threads that may be stuck for good.
  */
object ProbeMain:

  def main(args: Array[String]): Unit =
    val result = Try(parse(args)).flatMap(probe => Try(measure(probe))) match
      case Success(result) => result
      case Failure(error) =>
        ProbeResult.nothing(
          ProbeResult.Outcome.Failed(Option(error.getMessage).getOrElse(error.toString))
        )
    System.out.println(result.encode)
    System.out.flush()
    Runtime.getRuntime.halt(0)

  private final case class Probe(
      preset: RuntimePreset,
      burst: Burst,
      processes: Int,
      cycles: Int,
      warmUpCalls: Long,
      rounds: Int,
      stall: FiniteDuration
  )

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

  /** How one burst ended: its time, or how it failed and after how long. */
  private enum Round:
    case Done(millis: Double)
    case Stopped(outcome: ProbeResult.Outcome, millis: Double)

  private def measure(p: Probe): ProbeResult =
    val runtime = p.preset.unsafeBuild()
    val perBurst = p.processes.toLong * p.cycles
    def go(cold: Option[Double], warm: Int, timed: List[Double], done: Long): ProbeResult =
      def finish(outcome: ProbeResult.Outcome, last: List[Double]) =
        ProbeResult(
          outcome,
          cold,
          timed.reverse ++ last,
          warm,
          threadStates(),
          peakThreads(),
          peakRssKb()
        )
      if cold.isDefined && timed.size == p.rounds then finish(ProbeResult.Outcome.Completed, Nil)
      else
        burst(runtime, p) match
          case Round.Stopped(outcome, millis) => finish(outcome, List(millis))
          case Round.Done(millis) =>
            if cold.isEmpty then go(Some(millis), 0, Nil, perBurst)
            else if done < p.warmUpCalls then go(cold, warm + 1, Nil, done + perBurst)
            else go(cold, warm, millis :: timed, done + perBurst)
    go(None, 0, Nil, 0L)

  private def burst(runtime: IORuntime, p: Probe): Round =
    val progress = new AtomicLong
    val timed = IO.monotonic.flatMap(start =>
      p.burst.program(p.processes, p.cycles, progress) >> IO.monotonic.map(_ - start)
    )
    val started = System.nanoTime()
    val future = timed.unsafeToFuture()(runtime)
    var seen = progress.get()
    var quietSince = System.nanoTime()
    while !future.isCompleted && System.nanoTime() - quietSince < p.stall.toNanos do
      try Await.ready(future, 50.millis)
      catch case _: TimeoutException => ()
      val now = progress.get()
      if now != seen then
        seen = now
        quietSince = System.nanoTime()
    def sinceStart = (System.nanoTime() - started) / 1e6
    future.value match
      case Some(Success(elapsed)) => Round.Done(elapsed.toNanos / 1e6)
      case Some(Failure(error)) =>
        Round.Stopped(ProbeResult.Outcome.Failed(error.toString), sinceStart)
      case None => Round.Stopped(ProbeResult.Outcome.Deadlocked, sinceStart)

  private def threadStates(): Map[String, Int] =
    Thread.getAllStackTraces.keySet.asScala.toList
      .groupBy(_.getState.toString)
      .view
      .mapValues(_.size)
      .toMap

  private def peakThreads(): Int = ManagementFactory.getThreadMXBean.getPeakThreadCount

  // VmHWM: the peak resident set size, in kB; Linux only.
  private def peakRssKb(): Option[Long] =
    Try {
      Files.readAllLines(Paths.get("/proc/self/status")).asScala.collectFirst {
        case line if line.startsWith("VmHWM:") =>
          line.stripPrefix("VmHWM:").trim.stripSuffix("kB").trim.toLong
      }
    }.toOption.flatten
