package weir.strategy

import cats.effect.{Concurrent, Deferred}
import cats.effect.std.{Queue, Semaphore}
import cats.effect.implicits.*
import cats.syntax.all.*
import fs2.Stream
import fs2.concurrent.SignallingRef

/** The ordered `parEvalMap(n)` the seed measured, with its window made explicit.
  *
  * Tasks start in input order and results come out in input order. A task starts when fewer than
  * `n` calls are running and fewer than `n` finished results wait behind an unfinished one: so a
  * slow task at the head of the line lets up to `n` later results pile up, then holds back new
  * starts until it finishes. These are the semantics the seed's figures and the independent
  * simulation in `shared/reference/seed-experiments.md` rest on.
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
    val setup = (Semaphore[F](n.toLong), SignallingRef[F, Int](0), Queue.unbounded[F, Option[F[Either[Throwable, Unit]]]]).tupled
    Stream.eval(setup).flatMap { (running, waiting, inOrder) =>
      // waiting = results finished but not yet emitted. Starts happen one at a time, here.
      val starts = in.evalMap { task =>
        running.acquire >> waiting.waitUntil(_ < n) >> Deferred[F, Either[Throwable, Unit]].flatMap { result =>
          val call = f(task).attempt.flatMap(outcome => waiting.update(_ + 1) >> result.complete(outcome))
          inOrder.offer(Some(result.get)).as(Stream.exec(call.void.guarantee(running.release)))
        }
      }
      val background = starts.parJoinUnbounded ++ Stream.exec(inOrder.offer(None))
      Stream
        .fromQueueNoneTerminated(inOrder)
        .evalMap(awaited => awaited.flatTap(_ => waiting.update(_ - 1)))
        .rethrow
        .concurrently(background)
    }
