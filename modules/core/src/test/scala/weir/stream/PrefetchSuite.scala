package weir.stream

import cats.effect.{IO, Ref}
import cats.effect.testkit.TestControl
import cats.syntax.all.*
import fs2.Stream
import munit.CatsEffectSuite
import scala.concurrent.duration.*
import weir.ConfigError

/** Seed 003's three properties of forcing a stream ahead, in virtual time, over many random cases:
  * the same elements and effects as without it; an error at the end after the elements before it;
  * `take` of an infinite stream ends and stops the background fiber.
  */
class PrefetchSuite extends CatsEffectSuite:

  private def depth(n: Int): Prefetch.Depth =
    Prefetch.Depth.from(n).fold(e => fail(e.getMessage), identity)

  private val cases = 150

  /** A random case: elements, the producer's and consumer's delay per element, and n. */
  private final case class Case(elements: List[Int], produce: List[Int], consume: List[Int], n: Int)

  private def gen(seed: Long): Case =
    val r = new scala.util.Random(seed)
    val size = r.nextInt(40)
    Case(
      List.fill(size)(r.nextInt(1000)),
      List.fill(size)(r.nextInt(5)),
      List.fill(size)(r.nextInt(5)),
      r.nextInt(5)
    )

  /** The case's upstream: each element's effect is logged as `p<i>` after its delay. */
  private def upstream(c: Case, log: Ref[IO, Vector[String]]): Stream[IO, Int] =
    Stream
      .emits(c.elements.zip(c.produce).zipWithIndex)
      .covary[IO]
      .evalMap { case ((a, delay), i) =>
        IO.sleep(delay.millis) >> log.update(_ :+ s"p$i").as(a)
      }

  /** Runs the case through `pipe`; the elements received and the producer's effects, in order. */
  private def run(c: Case, prefetch: Boolean, tail: Stream[IO, Int] = Stream.empty) =
    Ref[IO].of(Vector.empty[String]).flatMap { log =>
      Ref[IO].of(Vector.empty[Int]).flatMap { received =>
        val source = upstream(c, log) ++ tail
        val piped = if prefetch then source.through(Prefetch(depth(c.n))) else source
        val delays = c.consume.toVector
        piped.zipWithIndex
          .evalMap((a, i) =>
            IO.sleep(delays.lift(i.toInt).getOrElse(0).millis) >> received.update(_ :+ a)
          )
          .compile
          .drain
          .attempt
          .flatMap(outcome =>
            (received.get, log.get).mapN((r, l) => (outcome, r.toList, l.filter(_.startsWith("p"))))
          )
      }
    }

  test("the same elements and the same effects as without prefetch, for n = 0..4") {
    (1 to cases).toList.traverse_ { seed =>
      val c = gen(seed.toLong)
      TestControl.executeEmbed((run(c, prefetch = false), run(c, prefetch = true)).tupled).map {
        case (plain, ahead) =>
          assertEquals(ahead, plain, s"case $c")
          assertEquals(ahead._2, c.elements)
      }
    }
  }

  test("an error at the end surfaces in order, after every element before it") {
    val boom = new RuntimeException("boom")
    (1 to cases).toList.traverse_ { seed =>
      val c = gen(seed.toLong)
      TestControl.executeEmbed(run(c, prefetch = true, Stream.raiseError[IO](boom))).map {
        case (outcome, received, effects) =>
          assertEquals(outcome, Left(boom), s"case $c")
          assertEquals(received, c.elements, s"case $c")
          assertEquals(effects.size, c.elements.size)
      }
    }
  }

  test("an error in the middle arrives after the elements before it and nothing after") {
    val boom = new RuntimeException("boom")
    val stream = Stream(1, 2, 3).covary[IO] ++ Stream.raiseError[IO](boom) ++ Stream(4)
    TestControl
      .executeEmbed(
        stream
          .through(Prefetch(Prefetch.Depth(4)))
          .evalTap(_ => IO.sleep(1.second))
          .compile
          .toList
          .attempt
      )
      .map(outcome => assertEquals(outcome, Left(boom)))
      >> TestControl
        .executeEmbed(
          Ref[IO].of(List.empty[Int]).flatMap { got =>
            stream
              .through(Prefetch(Prefetch.Depth(4)))
              .evalTap(a => IO.sleep(1.second) >> got.update(_ :+ a))
              .compile
              .drain
              .attempt >> got.get
          }
        )
        .map(got => assertEquals(got, List(1, 2, 3)))
  }

  test("take(10) of an infinite stream ends, stops the fiber, and ran at most n + 1 ahead") {
    (0 to 4).toList.traverse_ { n =>
      val once = for
        made <- Ref[IO].of(0)
        stopped <- Ref[IO].of(false)
        infinite = Stream
          .repeatEval(IO.sleep(1.milli) >> made.getAndUpdate(_ + 1))
          .onFinalize(stopped.set(true))
        taken <- infinite
          .through(Prefetch(depth(n)))
          .evalTap(_ => IO.sleep(3.millis))
          .take(10)
          .compile
          .toList
        wasStopped <- stopped.get
        total <- made.get
        _ <- IO.sleep(1.second) // nothing more is made once it has stopped
        later <- made.get
      yield
        assertEquals(taken, (0 until 10).toList)
        assert(wasStopped, "the upstream's finalizer ran before the stream completed")
        assert(total <= 10 + n + 1, s"made $total elements for n = $n")
        assertEquals(later, total)
      TestControl.executeEmbed(once.parReplicateA_(50))
    }
  }

  test("the upstream's effects run ahead by exactly n + 1 while the consumer waits") {
    (0 to 4).toList.traverse_ { n =>
      val program = Ref[IO].of(0).flatMap { made =>
        Stream
          .repeatEval(made.getAndUpdate(_ + 1))
          .through(Prefetch(depth(n)))
          .evalMap(_ => IO.sleep(1.hour) >> made.get)
          .take(1)
          .compile
          .lastOrError
      }
      // While the consumer holds element 0 for an hour, the producer made elements 1..n+1.
      TestControl.executeEmbed(program).map(made => assertEquals(made, n + 2))
    }
  }

  test("fs2's prefetchN, by contrast, raises the error before elements it had buffered") {
    val boom = new RuntimeException("boom")
    val stream = Stream(1, 2, 3).covary[IO] ++ Stream.raiseError[IO](boom)
    val program = Ref[IO].of(List.empty[Int]).flatMap { got =>
      stream
        .prefetchN(4)
        .evalTap(a => IO.sleep(1.second) >> got.update(_ :+ a))
        .compile
        .drain
        .attempt
        .product(got.get)
    }
    TestControl.executeEmbed(program).map { (outcome, got) =>
      assertEquals(outcome, Left(boom))
      assert(got.size < 3, s"fs2's prefetchN delivered $got before the error")
    }
  }

  test("a negative n is refused where the depth is made, with a ConfigError") {
    assertEquals(Prefetch.Depth.from(-1), Left(ConfigError.Negative("prefetch", "-1")))
    assert(compileErrors("Prefetch.Depth(-1)").contains("prefetch must not be negative"))
  }
