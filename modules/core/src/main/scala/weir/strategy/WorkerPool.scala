package weir.strategy

import cats.effect.Async
import cats.effect.std.Queue
import cats.effect.implicits.*
import cats.syntax.all.*
import weir.{Limits, Source}
import weir.strategy.Strategy

/** Every partition's producer at once into one bounded queue (`queueCapacity`), drained by
  * `concurrency` long-lived worker fibers: no fiber is started per task.
  *
  * Producers end the queue with one end marker per worker once all of them have finished; each
  * worker stops at its marker. A failing handler fails its worker, which cancels the other workers
  * and the producers.
  */
object WorkerPool extends Strategy.Buffered:
  val name = "worker-pool"
  val summary = "every producer at once into a bounded queue, long-lived worker fibers"

  def runUntil[F[_]: Async, A](source: Source[F, A], limits: Limits, halt: Option[F[Unit]])(
      handler: A => F[Unit]
  ): F[Unit] =
    Queue.bounded[F, Option[A]](limits.queueCapacity).flatMap { queue =>
      val producers =
        source.partitions.parTraverse_(_.foreach(task => queue.offer(Some(task))).compile.drain)
      val produce =
        Strategy.until(producers, halt) >> queue.offer(None).replicateA_(limits.concurrency)
      def work: F[Unit] = queue.take.flatMap {
        case Some(task) => handler(task) >> work
        case None       => Async[F].unit
      }
      (produce, work.parReplicateA_(limits.concurrency)).parTupled.void
    }
