package weir.lab.strategy

import cats.effect.Async
import cats.effect.implicits.*
import cats.syntax.all.*
import fs2.Stream
import java.util.concurrent.{LinkedBlockingQueue, TimeUnit}
import weir.{Limits, Source}
import weir.strategy.Strategy

/** Seed approach 2: a `java.util.concurrent.LinkedBlockingQueue` of `queueCapacity` between one
  * producer and ordered consumers (`concurrency` calls).
  *
  * As in the seed, waiting on the queue blocks a compute thread: `put` and `take` are plain
  * `delay`s, not marked blocking. That is the cost the seed demonstrates, and the reason to prefer
  * [[StreamQueue]]; [[RealBlockingQueue]] shows the deadlock it leads to. Unlike the seed, a wait
  * blocks in slices of [[BlockingQueue.sliceMillis]] ms and checks for cancellation in between, so
  * a failing handler or producer, or a cancelled run, does not leave the other side blocked for
  * ever. Because it blocks the thread it runs on, it cannot run on a single-threaded test runtime.
  */
object BlockingQueue extends Strategy:
  val name = "blocking-queue"
  val summary = "java LinkedBlockingQueue, thread-blocking put/take, ordered consumers (seed)"

  /** The longest a thread blocks before the waiting fiber checks for cancellation. */
  val sliceMillis: Long = 10

  def run[F[_]: Async, A](source: Source[F, A], limits: Limits)(handler: A => F[Unit]): F[Unit] =
    Async[F].delay(new LinkedBlockingQueue[Option[A]](limits.queueCapacity)).flatMap { queue =>
      def put(task: Option[A]): F[Unit] =
        Async[F].delay(queue.offer(task, sliceMillis, TimeUnit.MILLISECONDS)).flatMap { done =>
          if done then Async[F].unit else Async[F].cede >> put(task)
        }
      // A timed-out slice returns null; ceding between slices lets cancellation in.
      def take: F[Option[A]] =
        Async[F].delay(queue.poll(sliceMillis, TimeUnit.MILLISECONDS)).flatMap { task =>
          if task == null then Async[F].cede >> take else Async[F].pure(task)
        }
      val produce = (source.sequential.map(Some(_)) ++ Stream.emit(None)).evalMap(put).compile.drain
      val consume = Stream
        .repeatEval(take)
        .unNoneTerminate
        .through(SeedOrdered.parEvalMap(limits.concurrency)(handler))
        .compile
        .drain
      (produce, consume).parTupled.void
    }
