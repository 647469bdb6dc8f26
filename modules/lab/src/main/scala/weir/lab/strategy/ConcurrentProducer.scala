package weir.lab.strategy

import cats.effect.Async
import weir.{Limits, Source}
import weir.strategy.Strategy

/** Seed approach 7: every partition at once (`parJoin`), one chunk prefetched, then ordered
  * `parEvalMap(concurrency)`.
  */
object ConcurrentProducer extends Strategy:
  val name = "concurrent-producer"
  val summary = "every producer at once via parJoin, prefetch, ordered consumers (seed)"

  def run[F[_]: Async, A](source: Source[F, A], limits: Limits)(handler: A => F[Unit]): F[Unit] =
    source.concurrent.prefetch
      .through(SeedOrdered.parEvalMap(limits.concurrency)(handler))
      .compile
      .drain
