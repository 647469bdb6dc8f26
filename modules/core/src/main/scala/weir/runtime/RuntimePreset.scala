package weir.runtime

import cats.effect.{IO, Resource}
import cats.syntax.all.*
import cats.effect.unsafe.IORuntime
import java.util.concurrent.{ExecutorService, Executors, ThreadFactory}
import java.util.concurrent.atomic.AtomicInteger
import scala.concurrent.ExecutionContext
import weir.WeirError

/** The threads a run's fibers execute on. Only the compute pool changes between presets; timers
  * and `blocking` sections use cats-effect's own scheduler and blocking pool in every preset.
  */
enum RuntimePreset:

  /** cats-effect's default work-stealing pool, one worker thread per core. */
  case WorkStealing

  /** A fixed pool of `threads` daemon threads named `weir-fixed-N` (the seed ran on 2). */
  case Fixed(threads: Int)

  /** A new virtual thread for every task the compute pool is given (JDK 21 or later, fiber
    * tracing off).
    */
  case Virtual

  /** The name used on the command line: `wsp`, `fixed:N` or `virtual`. */
  def label: String = this match
    case WorkStealing => "wsp"
    case Fixed(n) => s"fixed:$n"
    case Virtual => "virtual"

  /** A fresh runtime of this preset, shut down on release (its threads interrupted).
    *
    * Fails with [[WeirError.RuntimeUnavailable]] when the preset cannot run on this JVM.
    */
  def resource: Resource[IO, IORuntime] = this match
    case WorkStealing =>
      Resource.make(IO(IORuntime.builder().build()))(runtime => IO(runtime.shutdown()))
    case Fixed(threads) =>
      fromExecutor(IO(Executors.newFixedThreadPool(threads, RuntimePreset.daemonThreads("weir-fixed"))))
    case Virtual =>
      Resource.eval(IO.fromEither(RuntimePreset.virtualThreadsAvailable.left.map(WeirError.RuntimeUnavailable(_)))) *>
        fromExecutor(IO(RuntimePreset.newVirtualThreadPerTaskExecutor()))

  private def fromExecutor(create: IO[ExecutorService]): Resource[IO, IORuntime] =
    Resource
      .make(create)(pool => IO(pool.shutdownNow()).void)
      .flatMap { pool =>
        Resource.make(
          IO(IORuntime.builder().setCompute(ExecutionContext.fromExecutor(pool), () => ()).build())
        )(runtime => IO(runtime.shutdown()))
      }

object RuntimePreset:

  /** Allowed values, for help texts and error messages. */
  val syntax: String = "wsp | fixed:N (N >= 1) | virtual"

  /** Parses `wsp`, `fixed:N` or `virtual`; `Left` says what is allowed. */
  def parse(text: String): Either[String, RuntimePreset] = text.trim.toLowerCase match
    case "wsp" | "work-stealing" => Right(WorkStealing)
    case "virtual" | "vt" => Right(Virtual)
    case fixed if fixed.startsWith("fixed:") =>
      fixed.stripPrefix("fixed:").toIntOption.filter(_ > 0) match
        case Some(n) => Right(Fixed(n))
        case None => Left(s"runtime '$text': the thread count after 'fixed:' must be a positive integer")
    case _ => Left(s"runtime '$text' is not one of: $syntax")

  /** The running JDK's feature version (17, 21, 25, ...). */
  def javaFeatureVersion: Int = Runtime.version().feature()

  /** `Right(())` when virtual threads can be the compute pool here; `Left` says why not. */
  def virtualThreadsAvailable: Either[String, Unit] =
    val tracing = Option(System.getProperty("cats.effect.tracing.mode")).getOrElse("cached")
    if javaFeatureVersion < 21 then
      Left(
        s"virtual threads need JDK 21 or later; this JVM is $javaFeatureVersion " +
          s"(${System.getProperty("java.home")}). Run with a JDK >= 21 (./sbt and ./weir pick one when installed)."
      )
    else if tracing != "none" then
      Left(
        s"virtual threads need fiber tracing off (it leaks memory with them); this JVM has " +
          s"cats.effect.tracing.mode=$tracing. Start the JVM with -Dcats.effect.tracing.mode=none."
      )
    else Right(())

  /** `Thread.isVirtual`, false before JDK 21. */
  def isVirtual(thread: Thread): Boolean =
    try classOf[Thread].getMethod("isVirtual").invoke(thread).asInstanceOf[Boolean]
    catch case _: NoSuchMethodException => false

  // Reflection keeps the module compiling and loading on JDK 17, where the method is missing.
  private def newVirtualThreadPerTaskExecutor(): ExecutorService =
    classOf[Executors].getMethod("newVirtualThreadPerTaskExecutor").invoke(null).asInstanceOf[ExecutorService]

  private[weir] def daemonThreads(prefix: String): ThreadFactory =
    val counter = new AtomicInteger
    runnable =>
      val thread = new Thread(runnable, s"$prefix-${counter.getAndIncrement()}")
      thread.setDaemon(true)
      thread
