package weir.lab.strategy

import cats.effect.Async
import weir.{Limits, Source}
import weir.strategy.Strategy

/** Seed approach 4: `parEvalMap(concurrency)` straight on the producer's stream. The next batch is
  * produced only when the consumers pull it, so producing waits for consuming to ask. `parEvalMap`
  * keeps order: a slow task at the head holds back new starts once `concurrency` results are
  * pending.
  */
object PlainStream extends Strategy:
  val name = "stream"
  val summary = "parEvalMap on the producer stream, no prefetch (seed)"

  def run[F[_]: Async, A](source: Source[F, A], limits: Limits)(handler: A => F[Unit]): F[Unit] =
    source.sequential.through(SeedOrdered.parEvalMap(limits.concurrency)(handler)).compile.drain
