package weir.lab.runtimes

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
import weir.runtime.RuntimePreset

/** One cell of seed 004's experiment, measured in the JVM it runs in (a probe JVM of its own, so
  * one runtime's threads, JIT warm-up and memory never carry over into another's figures).
  *
  * [[measure]] builds the runtime and runs the burst on it again and again, as seed 004's
  * long-running JVM did: a first, cold burst; warm-up bursts until `warmUpCalls` calls have been
  * made in all (the cold burst's included), so that the JIT has compiled the paths being compared;
  * then `rounds` timed bursts. A burst with no finished call for `stall` ends the probe as
  * deadlocked.
  */
final case class Probe(
    preset: RuntimePreset,
    burst: Burst,
    processes: Int,
    cycles: Int,
    warmUpCalls: Long,
    rounds: Int,
    stall: FiniteDuration
):

  /** Runs the probe on the calling thread, which must be a plain platform thread outside the
    * runtime (it watches each burst, and must keep running when every runtime thread is blocked);
    * what it measured. The runtime is not shut down: threads blocked for good are left to the JVM's
    * halt.
    */
  def measure(): ProbeResult =
    val runtime = preset.unsafeBuild()
    val perBurst = processes.toLong * cycles
    def go(cold: Option[Double], warm: Int, timed: List[Double], done: Long): ProbeResult =
      def finish(outcome: ProbeResult.Outcome, last: List[Double]) =
        ProbeResult(
          outcome,
          cold,
          timed.reverse ++ last,
          warm,
          Probe.threadStates(),
          Probe.peakThreads(),
          Probe.peakRssKb()
        )
      if cold.isDefined && timed.size == rounds then finish(ProbeResult.Outcome.Completed, Nil)
      else
        once(runtime) match
          case Probe.Round.Stopped(outcome, millis) => finish(outcome, List(millis))
          case Probe.Round.Done(millis) =>
            if cold.isEmpty then go(Some(millis), 0, Nil, perBurst)
            else if done < warmUpCalls then go(cold, warm + 1, Nil, done + perBurst)
            else go(cold, warm, millis :: timed, done + perBurst)
    go(None, 0, Nil, 0L)

  // One burst, watched: the calling thread waits for its end until a stall deadline, and looks at
  // the progress only then (no polling in between): progress since the last look moves the
  // deadline one stall further; none ends the burst as deadlocked, between one and two stalls after
  // the last call that finished.
  private def once(runtime: IORuntime): Probe.Round =
    val progress = new AtomicLong
    val timed = IO.monotonic.flatMap(start =>
      burst.program(processes, cycles, progress) >> IO.monotonic.map(_ - start)
    )
    val started = System.nanoTime()
    val future = timed.unsafeToFuture()(runtime)
    var seen = progress.get()
    var watching = true
    while watching do
      try
        Await.ready(future, stall)
        watching = false
      catch
        case _: TimeoutException =>
          val now = progress.get()
          if now == seen then watching = false else seen = now
    def sinceStart = (System.nanoTime() - started) / 1e6
    future.value match
      case Some(Success(elapsed)) => Probe.Round.Done(elapsed.toNanos / 1e6)
      case Some(Failure(error)) =>
        Probe.Round.Stopped(ProbeResult.Outcome.Failed(error.toString), sinceStart)
      case None => Probe.Round.Stopped(ProbeResult.Outcome.Deadlocked, sinceStart)

object Probe:

  /** How one burst ended: its time, or how it failed and after how long. */
  private enum Round:
    case Done(millis: Double)
    case Stopped(outcome: ProbeResult.Outcome, millis: Double)

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
