package weir.strategy

import cats.effect.kernel.{Concurrent, Deferred, Ref}
import cats.effect.std.Queue
import cats.syntax.all.*
import fs2.{Chunk, Pull, Stream}

/** A stream that ends when `halt` completes, without interrupting what its consumer does with the
  * elements it already has.
  *
  * fs2's `interruptWhen` cannot do that: it interrupts the scope in which downstream effects of the
  * same pull run, so `source.interruptWhen(h).evalMap(task)` cancels the task in flight at `h`. A
  * graceful stop must end the source yet let tasks in flight finish.
  *
  * Here the stream is pulled in a fiber of its own, one chunk each time the consumer asks for one,
  * so nothing is produced sooner than without this wrapper (a lazy producer stays lazy) and the
  * halt interrupts only that fiber: a producer waiting or sleeping for its next chunk is stopped at
  * once, the consumer sees the end of the stream.
  *
  * Errors raised by the stream fail the consumer's stream. When the consumer stops pulling, the
  * producing fiber is cancelled. Costs two fiber hand-offs per chunk.
  */
private[weir] object Haltable:

  def apply[F[_], A](stream: Stream[F, A], halt: F[Unit])(using
      F: Concurrent[F]
  ): Stream[F, A] =
    type Ask = Deferred[F, Option[Chunk[A]]]
    val setup = (Queue.synchronous[F, Ask], Ref.of[F, Option[Ask]](None)).tupled
    Stream.eval(setup).flatMap { (asks, pending) =>
      // Takes an ask, pulls one chunk, answers; the ask waiting when the stream ends (or is halted)
      // is answered with None, and so is every later one.
      def serve(chunks: Stream[F, Chunk[A]]): Pull[F, Nothing, Unit] =
        // An ask taken is always recorded: the halt may interrupt the wait, never the two steps.
        val take = F.uncancelable(poll => poll(asks.take).flatTap(ask => pending.set(Some(ask))))
        Pull.eval(take).flatMap { ask =>
          chunks.pull.uncons1.flatMap {
            case Some((chunk, rest)) => Pull.eval(ask.complete(Some(chunk))) >> serve(rest)
            case None                => Pull.done
          }
        }
      val ended: F[Unit] = pending.get.flatMap(_.traverse_(_.complete(None))) >>
        asks.take.flatMap(_.complete(None)).foreverM
      val producer =
        serve(stream.chunks).stream.interruptWhen(halt.attempt) ++ Stream.exec(ended)
      val next: F[Option[Chunk[A]]] =
        Deferred[F, Option[Chunk[A]]].flatMap(ask => asks.offer(ask) >> ask.get)
      Stream.repeatEval(next).unNoneTerminate.unchunks.concurrently(producer)
    }
