package weir.strategy

import cats.effect.Async
import cats.effect.implicits.*
import cats.syntax.all.*
import fs2.Stream
import java.util.concurrent.LinkedBlockingQueue
import weir.{Limits, Source, Strategy}

/** Seed approach 2: a `java.util.concurrent.LinkedBlockingQueue` of `queueCapacity` between one
  * producer and an ordered `parEvalMap(concurrency)` consumer.
  *
  * As in the seed, `put` and `take` are plain `delay`s, not marked blocking: while the queue is
  * empty (or full) they block a compute thread. That is the point of the demonstration and the
  * reason not to use it; [[RealBlockingQueue]] shows the deadlock it leads to. Because it blocks
  * the thread it runs on, it cannot run under a single-threaded test runtime.
  *
  * On error or cancellation the consumer stops; a producer blocked in `put` is interrupted only
  * if its runtime interrupts threads, so prefer [[StreamQueue]] everywhere.
  */
object BlockingQueue extends Strategy:
  val name = "blocking-queue"
  val summary = "java LinkedBlockingQueue, thread-blocking put/take, ordered consumers (seed)"

  def run[F[_]: Async, A](source: Source[F, A], limits: Limits)(handler: A => F[Unit]): F[Unit] =
    Async[F].delay(new LinkedBlockingQueue[Option[A]](limits.queueCapacity)).flatMap { queue =>
      val produce =
        (source.sequential.map(Some(_)) ++ Stream.emit(None))
          .evalMap(task => Async[F].delay(queue.put(task)))
          .compile
          .drain
      val consume =
        Stream
          .repeatEval(Async[F].delay(queue.take()))
          .unNoneTerminate
          .through(SeedOrdered.parEvalMap(limits.concurrency)(handler))
          .compile
          .drain
      (produce, consume).parTupled.void
    }
