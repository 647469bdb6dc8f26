package weir.cli.common

import cats.effect.{IO, Ref}
import cats.effect.std.Dispatcher
import munit.CatsEffectSuite
import sun.misc.Signal

/** Ctrl-C's presses: the first runs the graceful stop, the second the stop at once; a press whose
  * handler runs after the command has ended (its dispatcher closed) does nothing and throws nothing
  * (it printed a stack trace: "Dispatcher already closed").
  */
class InterruptsSuite extends CatsEffectSuite:

  private val int = new Signal("INT")

  test("the first press runs the graceful stop, the second the stop at once") {
    Dispatcher.sequential[IO](await = true).use { dispatcher =>
      for
        seen <- Ref.of[IO, List[String]](Nil)
        handler = Interrupts.presses(
          dispatcher,
          seen.update(_ :+ "graceful"),
          seen.update(_ :+ "now")
        )
        _ <- IO(handler.handle(int))
        _ <- seen.get.iterateUntil(_.nonEmpty)
        first <- seen.get
        _ <- IO(handler.handle(int))
        _ <- seen.get.iterateUntil(_.size == 2)
        both <- seen.get
      yield
        assertEquals(first, List("graceful"))
        assertEquals(both, List("graceful", "now"))
    }
  }

  test("presses after the command has ended do nothing and throw nothing") {
    for
      seen <- Ref.of[IO, List[String]](Nil)
      closed <- Dispatcher.sequential[IO].use(IO.pure)
      handler = Interrupts.presses(closed, seen.update(_ :+ "graceful"), seen.update(_ :+ "now"))
      _ <- IO(handler.handle(int))
      _ <- IO(handler.handle(int))
      after <- seen.get
    yield assertEquals(after, Nil)
  }
