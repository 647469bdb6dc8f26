package weir.strategy

import cats.effect.Async
import weir.{Limits, Source}
import weir.strategy.Strategy

/** One producer, one batch prefetched, and `parEvalMapUnordered(concurrency)`: a finished handler
  * frees its slot at once, so a slow task never holds back the ones behind it (the head-of-line
  * blocking of the seed's ordered `parEvalMap`).
  */
object UnorderedPool extends Strategy:
  val name = "unordered"
  val summary = "one producer with prefetch, unordered pool of handler slots"

  def run[F[_]: Async, A](source: Source[F, A], limits: Limits)(handler: A => F[Unit]): F[Unit] =
    source.sequential.prefetch.parEvalMapUnordered(limits.concurrency)(handler).compile.drain
