package weir.strategy

import cats.effect.{Deferred, IO, Ref}
import cats.effect.testkit.TestControl
import cats.syntax.all.*
import fs2.Stream
import munit.CatsEffectSuite
import scala.concurrent.duration.*

/** [[Haltable]]: a halt ends the stream, never the consumer's work in flight; laziness, errors and
  * early termination as without it. Racy cases run many times under virtual time.
  */
class HaltableSuite extends CatsEffectSuite:

  test("a halt ends the stream; the task in flight downstream finishes, nothing starts after") {
    val program = for
      halt <- Deferred[IO, Unit]
      done <- Ref.of[IO, List[Int]](Nil)
      stream = Haltable(Stream.iterate(0)(_ + 1).covary[IO], halt.get)
        .evalMap(i => IO.sleep(100.millis) >> done.update(i :: _))
      _ <- (IO.sleep(250.millis) >> halt.complete(())).background.surround(stream.compile.drain)
      end <- IO.monotonic
      handled <- done.get
    yield (end, handled.reverse)
    List
      .fill(50)(TestControl.executeEmbed(program))
      .sequence
      .map(_.foreach { (end, handled) =>
        assertEquals((end, handled), (300.millis, List(0, 1, 2)))
      })
  }

  test("lazy: a chunk is pulled only when the consumer asks for it") {
    val program = for
      pulled <- Ref.of[IO, Int](0)
      source = Stream.iterate(0)(_ + 1).covary[IO].evalTap(_ => pulled.update(_ + 1))
      firstTwo <- Haltable(source, IO.never).take(2).compile.toList
      n <- pulled.get
    yield (firstTwo, n)
    List
      .fill(20)(TestControl.executeEmbed(program))
      .sequence
      .map(_.foreach { (firstTwo, n) =>
        assertEquals((firstTwo, n), (List(0, 1), 2))
      })
  }

  test("a halt stops a producer waiting for its next element at once") {
    val program = for
      halt <- Deferred[IO, Unit]
      slow = Stream.emit(1).covary[IO] ++ Stream.sleep_[IO](1.hour) ++ Stream.emit(2)
      _ <- (IO.sleep(1.second) >> halt.complete(())).start
      out <- Haltable(slow, halt.get).compile.toList
      end <- IO.monotonic
    yield (out, end)
    TestControl.executeEmbed(program).map(r => assertEquals(r, (List(1), 1.second)))
  }

  test("an error raised by the stream fails the consumer's stream after the elements before it") {
    val boom = new RuntimeException("boom")
    val failing = Stream(1, 2, 3).covary[IO] ++ Stream.raiseError[IO](boom)
    List
      .fill(20)(TestControl.executeEmbed(Haltable(failing, IO.never).attempt.compile.toList))
      .sequence
      .map(_.foreach(r => assertEquals(r, List(Right(1), Right(2), Right(3), Left(boom)))))
  }

  test("the elements and their order are the stream's own") {
    val chunky = Stream.range(0, 1000).chunkN(7).flatMap(Stream.chunk).covary[IO]
    Haltable(chunky, IO.never).compile.toList.map(out => assertEquals(out, List.range(0, 1000)))
  }
