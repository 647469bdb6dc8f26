package weir.lab.strategy

import cats.effect.{Async, Deferred}
import cats.effect.implicits.*
import cats.syntax.all.*
import fs2.Stream
import java.util.concurrent.LinkedBlockingQueue
import weir.{Limits, Source}
import weir.strategy.Strategy

/** The seed's deadlock demonstration: two consumers that block their threads in `take` are started
  * before the producer. On a pool of two threads both threads wait in `take` and the producer never
  * runs: the run makes no progress, for ever. Run it under a watchdog ([[weir.lab.run.Runner]]); it
  * exists to show why thread-blocking calls must be marked.
  *
  * The seed's version deadlocked only when scheduling happened to put both consumers in `take`
  * first; here the producer waits until both consumers are about to call `take`, so the outcome
  * depends only on the number of threads. Where a third thread exists it completes (each consumer
  * gets its own end marker). It cannot be cancelled while its threads are blocked.
  */
object RealBlockingQueue extends Strategy:
  val name = "real-blocking-queue"
  val summary = "two thread-blocking consumers started first: deadlocks on 2 threads (seed -b)"

  private val consumers = 2

  def run[F[_]: Async, A](source: Source[F, A], limits: Limits)(handler: A => F[Unit]): F[Unit] =
    (
      Async[F].delay(new LinkedBlockingQueue[Option[A]](limits.queueCapacity)),
      Deferred[F, Unit].replicateA(consumers)
    ).flatMapN { (queue, ready) =>
      // Signal readiness, then block this thread in `take` without giving it back.
      def consume(ready: Deferred[F, Unit]) =
        Stream
          .exec(ready.complete(()).void)
          .append(Stream.repeatEval(Async[F].delay(queue.take())))
          .unNoneTerminate
          .through(SeedOrdered.parEvalMap(limits.concurrency)(handler))
          .compile
          .drain
      val produce =
        ready.traverse_(_.get) >>
          (source.sequential.map(Some(_)) ++ Stream.emits(List.fill(consumers)(None)))
            .evalMap(task => Async[F].delay(queue.put(task)))
            .compile
            .drain
      (ready.map(consume) :+ produce).parSequence_
    }
