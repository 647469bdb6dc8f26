package weir.strategy

import cats.effect.{Concurrent, Deferred, Ref}
import cats.effect.implicits.*
import cats.effect.std.{Queue, Semaphore}
import cats.syntax.all.*
import fs2.Stream

/** The ordered `parEvalMap(n)` the seed measured, with its window made explicit.
  *
  * Tasks start in input order and results come out in input order. A task starts when fewer than
  * `n` calls are running and fewer than `n` finished results wait behind an unfinished one: so a
  * slow task at the head of the line lets up to `n` later results pile up, then holds back new
  * starts until it finishes. This is the rule the seed's reference simulation states
  * (`shared/reference/seed-experiments.md` §1).
  *
  * fs2 3's own `parEvalMap` keeps a task's slot until the output reaches it, a window of `n` in
  * all, which makes the ordered strategies much slower than the seed reported (balanced 20.3 s
  * instead of ~14 s in virtual time; docs/adr/0002-ordered-window.md).
  *
  * Errors: a failing `f` fails the stream when the output reaches that task, after every result
  * before it; calls still running are cancelled. Cancelling the stream cancels producer and calls.
  */
private[strategy] object SeedOrdered:

  def parEvalMap[F[_]: Concurrent, A](n: Int)(f: A => F[Unit])(in: Stream[F, A]): Stream[F, Unit] =
    val setup = (
      Semaphore[F](n.toLong),
      Waiting[F](n),
      Queue.unbounded[F, Option[F[Either[Throwable, Unit]]]]
    ).tupled
    Stream.eval(setup).flatMap { (running, waiting, inOrder) =>
      // Starts happen one at a time, in this evalMap.
      val starts = in.evalMap { task =>
        running.acquire >> waiting.awaitRoom >> Deferred[F, Either[Throwable, Unit]].flatMap {
          result =>
            val call =
              f(task).attempt.flatMap(outcome => waiting.finished >> result.complete(outcome))
            inOrder.offer(Some(result.get)).as(Stream.exec(call.void.guarantee(running.release)))
        }
      }
      val background = starts.parJoinUnbounded ++ Stream.exec(inOrder.offer(None))
      Stream
        .fromQueueNoneTerminated(inOrder)
        .evalMap(awaited => awaited.flatTap(_ => waiting.emitted))
        .rethrow
        .concurrently(background)
    }

  /** Counts finished results not yet emitted, and lets the single starter wait for room.
    *
    * Invariant: `count` = results finished and not yet emitted; `waiter` is set only while the
    * starter waits for `count < limit`, and is completed by the first emission that makes room.
    */
  private final class Waiting[F[_]: Concurrent](limit: Int, state: Ref[F, Waiting.State[F]]):

    def finished: F[Unit] = state.update(s => s.copy(count = s.count + 1))

    def emitted: F[Unit] =
      state.modify { s =>
        val count = s.count - 1
        if count < limit then (Waiting.State(count, None), s.waiter.traverse_(_.complete(()).void))
        else (s.copy(count = count), Concurrent[F].unit)
      }.flatten

    def awaitRoom: F[Unit] =
      Deferred[F, Unit].flatMap { wake =>
        state.modify { s =>
          if s.count < limit then (s, Concurrent[F].unit)
          else (s.copy(waiter = Some(wake)), wake.get >> awaitRoom)
        }.flatten
      }

  private object Waiting:
    final case class State[F[_]](count: Int, waiter: Option[Deferred[F, Unit]])

    def apply[F[_]: Concurrent](limit: Int): F[Waiting[F]] =
      Ref.of[F, State[F]](State(0, None)).map(new Waiting(limit, _))
