package weir.lab.strategy

import cats.effect.Async
import cats.effect.std.Queue
import cats.effect.implicits.*
import cats.syntax.all.*
import fs2.Stream
import weir.{Limits, Source}
import weir.strategy.Strategy

/** Seed approach 6: every partition's producer offers into one bounded queue (`queueCapacity`) at
  * once; ordered `parEvalMap(concurrency)` consumers drain it.
  *
  * The seed stopped after counting `total` completions; this version ends the queue once every
  * producer has finished, which ends at the same moment (the last completion follows the last
  * produce) and needs no known total.
  */
object ConcurrentProducerQueue extends Strategy.Buffered:
  val name = "concurrent-producer-queue"
  val summary = "every producer at once into one bounded queue, ordered consumers (seed)"

  def runUntil[F[_]: Async, A](source: Source[F, A], limits: Limits, halt: Option[F[Unit]])(
      handler: A => F[Unit]
  ): F[Unit] =
    Queue.bounded[F, Option[A]](limits.queueCapacity).flatMap { queue =>
      val producers =
        source.partitions.parTraverse_(_.evalMap(task => queue.offer(Some(task))).compile.drain)
      val produce = Strategy.until(producers, halt) >> queue.offer(None)
      val consume =
        Stream
          .fromQueueNoneTerminated(queue)
          .through(SeedOrdered.parEvalMap(limits.concurrency)(handler))
          .compile
          .drain
      (produce, consume).parTupled.void
    }
