package weir.strategy

import cats.effect.Async
import weir.{Limits, Source}
import weir.strategy.Strategy

/** Every partition's producer at once, one batch prefetched, then an unordered pool of
  * `concurrency` handler slots: the seed's concurrent producers without its head-of-line blocking.
  */
object ConcurrentProducers extends Strategy:
  val name = "concurrent-producers"
  val summary = "every producer at once, prefetch, unordered pool of handler slots"

  def run[F[_]: Async, A](source: Source[F, A], limits: Limits)(handler: A => F[Unit]): F[Unit] =
    source.concurrent.prefetch.parEvalMapUnordered(limits.concurrency)(handler).compile.drain
