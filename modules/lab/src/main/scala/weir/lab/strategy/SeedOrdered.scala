package weir.lab.strategy

import cats.effect.{Concurrent, Deferred, Ref}
import cats.effect.implicits.*
import cats.effect.std.{Queue, Semaphore}
import cats.syntax.all.*
import fs2.Stream

/** The ordered `parEvalMap(n)` the seed measured: fs2 2.5's structure, made deterministic.
  *
  * Tasks start in input order and results come out in input order. fs2 2.5.10, which seed 000 ran
  * on, puts each task's promise of a result in a queue of `n` before the task takes one of `n`
  * running slots; the output side takes every promise waiting in that queue at once, then awaits
  * them one by one while the queue refills. So a slow task at the head of the line lets up to about
  * `2n` later tasks start, then holds back new starts until it finishes.
  *
  * How many promises the output side grabs depends, in fs2, on when its fiber happens to run. Here
  * it is fixed: the output side takes the whole queue the moment it has awaited everything it held
  * before (see [[Window]]). This reproduces the reference simulation
  * (`shared/reference/seed-experiments.md` §1) within 2 % in every scenario. fs2 3's own
  * `parEvalMap` keeps a task's slot until the output reaches it, a window of `n` in all, which
  * makes the ordered strategies much slower than the seed reported (balanced 20.3 s instead of ~14
  * s in virtual time; docs/adr/0002-ordered-window.md).
  *
  * Errors: a failing `f` fails the stream when the output reaches that task, after every result
  * before it; calls still running are cancelled. Cancelling the stream cancels producer and calls.
  */
private[strategy] object SeedOrdered:

  def parEvalMap[F[_]: Concurrent, A](n: Int)(f: A => F[Unit])(in: Stream[F, A]): Stream[F, Unit] =
    val setup = (
      Semaphore[F](n.toLong),
      Window[F](n),
      Queue.unbounded[F, Option[F[Either[Throwable, Unit]]]]
    ).tupled
    Stream.eval(setup).flatMap { (running, window, inOrder) =>
      // Starts happen one at a time, in this evalMap: the promise is queued, then a slot taken.
      val starts = in.evalMap { task =>
        Deferred[F, Either[Throwable, Unit]].flatMap { result =>
          val call = f(task).attempt.flatMap(result.complete).void.guarantee(running.release)
          window.enter >> inOrder.offer(Some(result.get)) >> running.acquire.as(Stream.exec(call))
        }
      }
      val background = starts.parJoinUnbounded ++ Stream.exec(inOrder.offer(None))
      Stream
        .fromQueueNoneTerminated(inOrder)
        .evalMap(awaited => awaited.flatTap(_ => window.emitted))
        .rethrow
        .concurrently(background)
    }

  /** The promise queue of fs2 2.5's `parEvalMap` as counts: `held` promises taken by the output
    * side and not yet emitted, `queued` promises behind them (at most `limit`).
    *
    * A promise goes straight to the output side when it holds nothing, else into the queue if there
    * is room, else the single starter waits. When the output side has emitted all it held, it takes
    * the whole queue at once and wakes the starter.
    */
  private final class Window[F[_]: Concurrent](limit: Int, state: Ref[F, Window.State[F]]):

    def enter: F[Unit] =
      Deferred[F, Unit].flatMap { wake =>
        state.modify { s =>
          if s.held == 0 then (s.copy(held = 1), Concurrent[F].unit)
          else if s.queued < limit then (s.copy(queued = s.queued + 1), Concurrent[F].unit)
          else (s.copy(waiter = Some(wake)), wake.get >> enter)
        }.flatten
      }

    def emitted: F[Unit] =
      state.modify { s =>
        if s.held > 1 then (s.copy(held = s.held - 1), Concurrent[F].unit)
        else (Window.State(s.queued, 0, None), s.waiter.traverse_(_.complete(()).void))
      }.flatten

  private object Window:
    final case class State[F[_]](held: Int, queued: Int, waiter: Option[Deferred[F, Unit]])

    def apply[F[_]: Concurrent](limit: Int): F[Window[F]] =
      Ref.of[F, State[F]](State(0, 0, None)).map(new Window(limit, _))
