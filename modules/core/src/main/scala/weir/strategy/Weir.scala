package weir.strategy

import cats.effect.Async
import weir.{Limits, Source, Strategy}

/** weir's default: every producer at once, a bounded queue that keeps them `queueCapacity`
  * tasks ahead, and `concurrency` long-lived workers taking tasks in any order. It has neither
  * the seed's head-of-line blocking nor a fiber per task; errors and cancellation behave as in
  * [[WorkerPool]].
  */
object Weir extends Strategy:
  val name = "weir"
  val summary = "weir's default: concurrent producers, bounded queue, long-lived workers"

  def run[F[_]: Async, A](source: Source[F, A], limits: Limits)(handler: A => F[Unit]): F[Unit] =
    WorkerPool.run(source, limits)(handler)
