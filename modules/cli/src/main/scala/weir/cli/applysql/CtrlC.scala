package weir.cli.applysql

import cats.effect.{Deferred, IO, Resource}
import cats.effect.std.Dispatcher
import java.util.concurrent.atomic.AtomicInteger
import sun.misc.{Signal, SignalHandler}

/** Ctrl-C for a command that must clean up on the server: the first SIGINT completes
  * [[CtrlC.pressed]] (the command cancels the running statement, rolls back and reports), a second
  * one halts the JVM at once with exit code 130. While in use it replaces the JVM's own handler
  * (which would start shutting down at the first one); on release the old one is back.
  */
final class CtrlC private (val pressed: IO[Unit])

object CtrlC:

  def resource: Resource[IO, CtrlC] =
    for
      dispatcher <- Dispatcher.sequential[IO]
      first <- Resource.eval(Deferred[IO, Unit])
      count = new AtomicInteger
      handler: SignalHandler = (_: Signal) =>
        if count.incrementAndGet() == 1 then
          System.err.println(
            "\nweir apply-sql: stopping (rolling back); Ctrl-C again to quit at once"
          )
          dispatcher.unsafeRunAndForget(first.complete(()))
        else Runtime.getRuntime.halt(130)
      _ <- Resource.make(IO(install(handler)))(old =>
        IO(old.foreach(Signal.handle(Signal("INT"), _))).void
      )
    yield new CtrlC(first.get)

  // No terminal or no SIGINT (some containers): Ctrl-C then behaves as the JVM's default.
  private def install(handler: SignalHandler): Option[SignalHandler] =
    try Some(Signal.handle(new Signal("INT"), handler))
    catch case _: IllegalArgumentException => None
