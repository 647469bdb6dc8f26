package weir.cli.runtimes

import cats.effect.IO
import java.lang.management.ManagementFactory
import java.nio.file.{Files, Paths}
import java.util.concurrent.TimeoutException
import java.util.concurrent.atomic.AtomicLong
import scala.concurrent.Await
import scala.concurrent.duration.*
import scala.jdk.CollectionConverters.*
import scala.util.{Failure, Success, Try}
import weir.runtime.RuntimePreset

/** The main class of a probe JVM, forked by [[Fork]] for every cell of `weir runtimes`: `ProbeMain
  * RUNTIME BURST PROCESSES CYCLES STALL_MS`.
  *
  * It builds the runtime, runs the burst on it, watches progress from the main thread (a plain
  * platform thread outside the runtime, so it keeps running when every runtime thread is blocked),
  * prints one [[ProbeResult]] line on stdout and halts the JVM at once, without waiting for threads
  * that may be stuck for good.
  */
object ProbeMain:

  def main(args: Array[String]): Unit =
    val result = Try(parse(args)).flatMap((preset, burst, processes, cycles, stall) =>
      Try(measure(preset, burst, processes, cycles, stall))
    ) match
      case Success(result) => result
      case Failure(error) =>
        ProbeResult.nothing(
          ProbeResult.Outcome.Failed(Option(error.getMessage).getOrElse(error.toString))
        )
    System.out.println(result.encode)
    System.out.flush()
    Runtime.getRuntime.halt(0)

  private def parse(args: Array[String]): (RuntimePreset, Burst, Int, Int, FiniteDuration) =
    args.toList match
      case runtime :: burst :: processes :: cycles :: stall :: Nil =>
        (
          RuntimePreset
            .parse(runtime)
            .fold(msg => throw new IllegalArgumentException(msg), identity),
          Burst.named(burst).fold(msg => throw new IllegalArgumentException(msg), identity),
          processes.toInt,
          cycles.toInt,
          stall.toLong.millis
        )
      case _ =>
        throw new IllegalArgumentException(
          "usage: ProbeMain RUNTIME BURST PROCESSES CYCLES STALL_MS"
        )

  private def measure(
      preset: RuntimePreset,
      burst: Burst,
      processes: Int,
      cycles: Int,
      stall: FiniteDuration
  ): ProbeResult =
    val runtime = preset.unsafeBuild()
    val progress = new AtomicLong
    val timed = IO.monotonic.flatMap(start =>
      burst.program(processes, cycles, progress) >> IO.monotonic.map(_ - start)
    )
    val started = System.nanoTime()
    val future = timed.unsafeToFuture()(runtime)
    var seen = progress.get()
    var quietSince = System.nanoTime()
    while !future.isCompleted && System.nanoTime() - quietSince < stall.toNanos do
      try Await.ready(future, 50.millis)
      catch case _: TimeoutException => ()
      val now = progress.get()
      if now != seen then
        seen = now
        quietSince = System.nanoTime()
    val (outcome, millis) = future.value match
      case Some(Success(elapsed)) => (ProbeResult.Outcome.Completed, elapsed.toNanos / 1e6)
      case Some(Failure(error)) =>
        (ProbeResult.Outcome.Failed(error.toString), (System.nanoTime() - started) / 1e6)
      case None => (ProbeResult.Outcome.Deadlocked, (System.nanoTime() - started) / 1e6)
    ProbeResult(
      outcome,
      millis,
      threadStates(),
      ManagementFactory.getThreadMXBean.getPeakThreadCount,
      peakRssKb()
    )

  private def threadStates(): Map[String, Int] =
    Thread.getAllStackTraces.keySet.asScala.toList
      .groupBy(_.getState.toString)
      .view
      .mapValues(_.size)
      .toMap

  // VmHWM: the peak resident set size, in kB; Linux only.
  private def peakRssKb(): Option[Long] =
    Try {
      Files.readAllLines(Paths.get("/proc/self/status")).asScala.collectFirst {
        case line if line.startsWith("VmHWM:") =>
          line.stripPrefix("VmHWM:").trim.stripSuffix("kB").trim.toLong
      }
    }.toOption.flatten
