package weir.lab.strategy

import cats.effect.Async
import weir.{Limits, Source}
import weir.strategy.Strategy

/** Seed approach 5: like [[PlainStream]], with the producer one chunk (one batch) ahead of the
  * consumers (`prefetch`).
  */
object PrefetchStream extends Strategy:
  val name = "prefetch-stream"
  val summary = "parEvalMap on the producer stream, one batch prefetched (seed)"

  def run[F[_]: Async, A](source: Source[F, A], limits: Limits)(handler: A => F[Unit]): F[Unit] =
    source.sequential.prefetch
      .through(SeedOrdered.parEvalMap(limits.concurrency)(handler))
      .compile
      .drain
