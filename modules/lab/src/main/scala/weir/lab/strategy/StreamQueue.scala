package weir.lab.strategy

import cats.effect.Async
import cats.effect.std.Queue
import cats.effect.implicits.*
import cats.syntax.all.*
import fs2.Stream
import weir.{Limits, Source}
import weir.strategy.Strategy

/** Seed approach 3: a fiber-blocking bounded queue (cats-effect `Queue`, `queueCapacity`) between
  * one producer and an ordered `parEvalMap(concurrency)` consumer. The producer runs ahead of the
  * consumers by up to the queue's capacity; waiting suspends fibers, not threads.
  */
object StreamQueue extends Strategy.Buffered:
  val name = "stream-queue"
  val summary = "fs2 bounded queue between one producer and ordered consumers (seed)"

  def runUntil[F[_]: Async, A](source: Source[F, A], limits: Limits, halt: Option[F[Unit]])(
      handler: A => F[Unit]
  ): F[Unit] =
    Queue.bounded[F, Option[A]](limits.queueCapacity).flatMap { queue =>
      val producer = source.sequential.map(Some(_)).evalMap(queue.offer).compile.drain
      val produce = Strategy.until(producer, halt) >> queue.offer(None)
      val consume =
        Stream
          .fromQueueNoneTerminated(queue)
          .through(SeedOrdered.parEvalMap(limits.concurrency)(handler))
          .compile
          .drain
      (produce, consume).parTupled.void
    }
