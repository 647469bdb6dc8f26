package examples

import cats.effect.{IO, IOApp, Ref}
import fs2.Stream
import weir.{Capacity, Concurrency, Limits, Source}
import weir.engine.Processing
import weir.strategy.Strategy

/** weir-core as a dependency: 1 000 tasks from two producers, handled by weir's default strategy
  * at most 64 at a time; prints how many ran.
  */
object CoreExample extends IOApp.Simple:
  def run: IO[Unit] =
    Ref.of[IO, Int](0).flatMap { handled =>
      Processing.run(
        Source.partitioned(Stream.range(0, 500).covary[IO], Stream.range(500, 1000).covary[IO]),
        Strategy.default,
        Limits(Concurrency(64), Capacity(256))
      )(_ => handled.update(_ + 1)) >> handled.get.flatMap(n => IO.println(s"weir-core: $n tasks handled"))
    }
