package weir.cli.common

import cats.syntax.all.*
import cats.effect.{Deferred, IO, Resource}
import cats.effect.std.Dispatcher
import java.util.concurrent.atomic.AtomicInteger
import sun.misc.{Signal, SignalHandler}

/** Ctrl-C as a user expects it from a long job: the first asks the job to stop gracefully (finish
  * or cut off what is in flight, then report); the second stops it at once (no grace, the report of
  * what is done); a third ends the process on the spot, exit code 130.
  *
  * While in use, SIGINT goes to these actions instead of the JVM's shutdown (SIGTERM still shuts
  * the JVM down, which cancels the command). A message on stderr says what each press did. The
  * previous handler is restored on release.
  */
object Interrupts:

  /** Ctrl-C for a command that applies SQL in a transaction: what it yields completes at the first
    * press, and the command makes it its apply's stop (`ApplyRun.reportStoppingOn`: the run's
    * `stopNow`, which cancels the statement on the server and rolls the file back; a press before
    * the run has started stops it as it starts); the second quits at once, leaving the rollback to
    * the server (it rolls back a transaction whose connection drops).
    */
  val rollingBack: Resource[IO, IO[Unit]] =
    Resource.eval(Deferred[IO, Unit]).flatMap { pressed =>
      val quit = Console.error(
        "weir apply-sql: quitting without waiting; the server rolls back the open transaction"
      ) >> IO(Runtime.getRuntime.halt(130))
      resource(pressed.complete(()).void, quit).as(pressed.get)
    }

  /** Ctrl-C handling for the command in use: `graceful` on the first press, `now` on the second. */
  def resource(graceful: IO[Unit], now: IO[Unit]): Resource[IO, Unit] =
    Dispatcher.sequential[IO].flatMap { dispatcher =>
      val handler = presses(dispatcher, graceful, now)
      Resource
        .make(IO(Signal.handle(new Signal("INT"), handler)))(previous =>
          IO(Signal.handle(new Signal("INT"), previous)).void
        )
        .void
    }

  /** What each press does, its actions run on `dispatcher`. A press whose handler runs after the
    * command has ended (the JVM runs a signal's handler on a thread of its own, which can start as
    * the resource is released and the dispatcher closed) does nothing: the command is already
    * ending on its own, and a further press reaches the JVM's own handler, restored on release.
    */
  private[common] def presses(
      dispatcher: Dispatcher[IO],
      graceful: IO[Unit],
      now: IO[Unit]
  ): SignalHandler =
    val count = new AtomicInteger
    def run(action: IO[Unit]): Unit =
      try dispatcher.unsafeRunAndForget(action)
      catch case _: IllegalStateException => () // the dispatcher is closed: the command has ended
    _ =>
      count.incrementAndGet() match
        case 1 =>
          run(
            Console.error("\nweir: stopping (Ctrl-C again to stop at once, without waiting)") >>
              graceful
          )
        case 2 =>
          run(Console.error("\nweir: stopping now (Ctrl-C again to quit without a report)") >> now)
        case _ =>
          System.err.println("\nweir: quit")
          Runtime.getRuntime.halt(130)
