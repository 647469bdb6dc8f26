package weir.cli

import cats.effect.{ExitCode, IO}
import cats.effect.unsafe.IORuntime
import java.util.concurrent.atomic.AtomicBoolean
import scala.concurrent.{Await, Future, Promise}
import scala.concurrent.duration.Duration
import scala.util.control.NonFatal
import weir.cli.common.{Exit, FatalExit}

/** The `weir` process's entry point (the start script's main class, and the JVMs weir forks):
  * starts the fatal-error watchdog ([[weir.cli.common.FatalExit]]), runs [[Main.run]] on
  * cats-effect's global runtime and exits with its code. Apart from [[Main]] so that tests, which
  * run [[Main.run]] in their own JVM, never install a watchdog that could halt it.
  *
  * Not through cats-effect's `IOApp`: its `main` registers a JMX bean for its CPU-starvation check
  * before the program starts: a one-statement `weir apply-sql` took 0.71 s through it and 0.645 s
  * without it (medians, ADR 0013, round 4). What `IOApp` did that weir needs is here: a shutdown of
  * the JVM (SIGTERM; SIGINT outside a command's own Ctrl-C handling,
  * [[weir.cli.common.Interrupts]]) cancels the command and waits for its finalizers (an apply rolls
  * back, a worker gives its jobs back) before the JVM ends; an error no command caught is one line
  * on stderr and exit 1.
  */
object Launcher:

  def main(args: Array[String]): Unit =
    FatalExit.install()
    exitCode(Main.run(args.toList), IORuntime.global).foreach { code =>
      if code == Exit.Ok.code then AotTraining.markSucceeded()
      System.exit(code)
    }

  /** Runs `program` to its end on `runtime` and gives its exit code; `None` when the JVM is
    * shutting down (the hook cancelled the program: `System.exit` would then block forever).
    */
  private[cli] def exitCode(program: IO[ExitCode], runtime: IORuntime): Option[Int] =
    // The program starts once the hook is in: a SIGTERM it could see always finds the hook.
    val hooked = Promise[Unit]()
    val (result, cancel) =
      (IO.fromFuture(IO.pure(hooked.future)) >> program).unsafeToFutureCancelable()(using runtime)
    val finished = new AtomicBoolean(false)
    val shuttingDown = new AtomicBoolean(false)
    val hook = new Thread(
      () =>
        if !finished.get then
          shuttingDown.set(true)
          Await.ready(cancel(), Duration.Inf): Unit,
      "weir-shutdown"
    )
    try Runtime.getRuntime.addShutdownHook(hook)
    catch
      // Already shutting down (a signal during the start): the program never runs.
      case _: IllegalStateException => shuttingDown.set(true)
    if shuttingDown.get then None
    else
      hooked.success(())
      val code = awaited(result, shuttingDown)
      finished.set(true)
      Option.unless(shuttingDown.get)(code)

  // The program's exit code; an error nothing caught is one line on stderr and exit 1 (said only
  // when the JVM is not shutting down: then the error is the hook's cancellation).
  private def awaited(result: Future[ExitCode], shuttingDown: AtomicBoolean): Int =
    try Await.result(result, Duration.Inf).code
    catch
      case NonFatal(e) =>
        if !shuttingDown.get then
          System.err.println(s"weir: ${Option(e.getMessage).getOrElse(e.getClass.getName)}")
        Exit.Failed.code
