package weir.runtime

import cats.effect.{IO, Resource}
import cats.effect.unsafe.IORuntime
import java.util.concurrent.{ExecutorService, Executors, ThreadFactory}
import java.util.concurrent.atomic.AtomicInteger
import scala.concurrent.ExecutionContext
import weir.WeirError

/** The threads a run's fibers execute on. Only the compute pool changes between presets; timers and
  * `blocking` sections use cats-effect's own scheduler and blocking pool in every preset.
  */
enum RuntimePreset:

  /** cats-effect's default work-stealing pool, one worker thread per core. */
  case WorkStealing

  /** A fixed pool of `threads` daemon threads named `weir-fixed-N` (the seed ran on 2). */
  case Fixed(threads: Int)

  /** A new virtual thread, named `weir-virtual-N`, for every task the compute pool is given (JDK 21
    * or later). Fiber tracing must be off (`-Dcats.effect.tracing.mode=none`): with it on,
    * cats-effect keeps per-thread tracing state that leaks with short-lived virtual threads, so
    * `resource` refuses to start rather than leak (the property is read once, when cats-effect
    * loads, so it cannot be switched off from here).
    */
  case Virtual

  /** A fresh runtime of this preset, shut down on release (its threads interrupted).
    *
    * Fails with [[WeirError.RuntimeUnavailable]] when the preset cannot run on this JVM.
    */
  def resource: Resource[IO, IORuntime] =
    Resource.make(IO(unsafeBuild()))(runtime => IO(runtime.shutdown()))

  /** Builds a runtime of this preset outside any effect, for a `main` that owns its threads and has
    * no runtime yet to run [[resource]] with. The caller must call `shutdown()` on it, which also
    * stops a fixed or virtual compute pool.
    *
    * Throws [[WeirError.RuntimeUnavailable]] when the preset cannot run on this JVM.
    */
  def unsafeBuild(): IORuntime = this match
    // Thread names: io-compute-N (cats-effect's own), weir-fixed-N, weir-virtual-N.
    case WorkStealing => IORuntime.builder().build()
    case Fixed(threads) =>
      withCompute(
        Executors.newFixedThreadPool(
          threads,
          RuntimePreset.daemonThreads(RuntimePreset.fixedThreadPrefix)
        )
      )
    case Virtual =>
      RuntimePreset.virtualThreadsAvailable.left.foreach(unavailable => throw unavailable)
      withCompute(RuntimePreset.newVirtualThreadPerTaskExecutor())

  /** Runs `program` on a fresh runtime of this preset, started for it and shut down after; the
    * caller only waits, on its own runtime. The one-line way to pick a runtime from code:
    * `RuntimePreset.Fixed(4).run(job)`.
    *
    * Errors of `program` are re-raised; cancelling the returned effect cancels `program` and waits
    * for it to stop before the runtime shuts down. Fails with [[WeirError.RuntimeUnavailable]] when
    * the preset cannot run here.
    */
  def run[A](program: IO[A]): IO[A] = resource.use(OnRuntime.run(program, _))

  private def withCompute(pool: ExecutorService): IORuntime =
    IORuntime
      .builder()
      .setCompute(ExecutionContext.fromExecutor(pool), () => pool.shutdownNow().discard)
      .build()

  extension [A](value: A) private def discard: Unit = ()

object RuntimePreset:

  /** The running JDK's feature version (17, 21, 25, ...). */
  def javaFeatureVersion: Int = Runtime.version().feature()

  /** The first JDK feature version with virtual threads. */
  val virtualThreadsSince: Int = 21

  /** The thread-name prefix of the [[RuntimePreset.Fixed]] pool's threads. */
  val fixedThreadPrefix: String = "weir-fixed"

  /** The thread-name prefix of the [[RuntimePreset.Virtual]] pool's threads. */
  val virtualThreadPrefix: String = "weir-virtual"

  /** `Right(())` when virtual threads can be the compute pool here; `Left` says why not. */
  def virtualThreadsAvailable: Either[WeirError.RuntimeUnavailable, Unit] =
    virtualThreadsCheck(
      javaFeatureVersion,
      Option(System.getProperty("cats.effect.tracing.mode")).getOrElse("cached"),
      Option(System.getProperty("java.home")).getOrElse("unknown java.home")
    )

  /** The check behind [[virtualThreadsAvailable]] for a given JDK feature version, tracing mode and
    * java.home: pure, so the messages can be tested on any JDK.
    */
  def virtualThreadsCheck(
      javaVersion: Int,
      tracingMode: String,
      javaHome: String
  ): Either[WeirError.RuntimeUnavailable, Unit] =
    val tracing = tracingMode.trim.toLowerCase
    if javaVersion < virtualThreadsSince then
      Left(
        WeirError.RuntimeUnavailable(
          s"virtual threads need JDK $virtualThreadsSince or later; this JVM is $javaVersion " +
            s"($javaHome). Run with a JDK >= $virtualThreadsSince."
        )
      )
    else if tracing != "none" then
      Left(
        WeirError.RuntimeUnavailable(
          s"virtual threads need fiber tracing off (it leaks memory with them); this JVM has " +
            s"cats.effect.tracing.mode=$tracingMode. Start the JVM with -Dcats.effect.tracing.mode=none."
        )
      )
    else Right(())

  /** `Thread.isVirtual`, false before JDK 21. */
  def isVirtual(thread: Thread): Boolean =
    try classOf[Thread].getMethod("isVirtual").invoke(thread).asInstanceOf[Boolean]
    catch case _: NoSuchMethodException => false

  // Reflection keeps the module compiling and loading on JDK 17, where these methods are missing:
  // Thread.ofVirtual().name(prefix-, 0).factory(), then Executors.newThreadPerTaskExecutor.
  // The methods are looked up on the public Thread.Builder interface, not the JDK's private class.
  private def newVirtualThreadPerTaskExecutor(): ExecutorService =
    val builderType = Class.forName("java.lang.Thread$Builder")
    val builder = classOf[Thread].getMethod("ofVirtual").invoke(null)
    val named = builderType
      .getMethod("name", classOf[String], java.lang.Long.TYPE)
      .invoke(builder, s"$virtualThreadPrefix-", java.lang.Long.valueOf(0L))
    val factory = builderType.getMethod("factory").invoke(named).asInstanceOf[ThreadFactory]
    classOf[Executors]
      .getMethod("newThreadPerTaskExecutor", classOf[ThreadFactory])
      .invoke(null, factory)
      .asInstanceOf[ExecutorService]

  private[weir] def daemonThreads(prefix: String): ThreadFactory =
    val counter = new AtomicInteger
    runnable =>
      val thread = new Thread(runnable, s"$prefix-${counter.getAndIncrement()}")
      thread.setDaemon(true)
      thread
