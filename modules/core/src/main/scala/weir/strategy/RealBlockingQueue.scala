package weir.strategy

import cats.effect.Async
import cats.effect.implicits.*
import cats.syntax.all.*
import fs2.Stream
import java.util.concurrent.LinkedBlockingQueue
import weir.{Limits, Source, Strategy}

/** The seed's deadlock demonstration: two consumers blocking their threads in `take` are started
  * before the producer. On a pool of two threads both threads wait in `take` and the producer
  * never runs: the run makes no progress, forever. Run it under a watchdog
  * ([[weir.run.Runner]]); it exists to show why thread-blocking calls must be marked.
  *
  * Where threads suffice it completes (each consumer gets its own end marker).
  */
object RealBlockingQueue extends Strategy:
  val name = "real-blocking-queue"
  val summary = "two thread-blocking consumers started first: deadlocks on 2 threads (seed -b)"

  private val consumers = 2

  def run[F[_]: Async, A](source: Source[F, A], limits: Limits)(handler: A => F[Unit]): F[Unit] =
    Async[F].delay(new LinkedBlockingQueue[Option[A]](limits.queueCapacity)).flatMap { queue =>
      val consume =
        Stream
          .repeatEval(Async[F].delay(queue.take()))
          .unNoneTerminate
          .through(SeedOrdered.parEvalMap(limits.concurrency)(handler))
          .compile
          .drain
      val produce =
        (source.sequential.map(Some(_)) ++ Stream.emits(List.fill(consumers)(None)))
          .evalMap(task => Async[F].delay(queue.put(task)))
          .compile
          .drain
      (List.fill(consumers)(consume) :+ produce).parSequence_
    }
