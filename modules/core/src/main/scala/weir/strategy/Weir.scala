package weir.strategy

import cats.effect.{Async, Concurrent, Deferred, Ref}
import cats.effect.implicits.*
import cats.syntax.all.*
import fs2.Chunk
import scala.collection.immutable.Queue
import weir.{Limits, Source, Strategy}

/** weir's default: every producer at once, offering whole chunks into one bounded buffer of at
  * most `queueCapacity` tasks, drained by `concurrency` long-lived workers.
  *
  * A worker takes a fair share of what is buffered, `max(1, buffered / concurrency)` tasks, in
  * one step and runs them one after another; so with slow handlers every worker still gets work
  * (shares are 1 or 2 tasks and all `concurrency` handlers stay busy), while with fast handlers a
  * worker pays for one hand-off per share instead of one per task. Nothing is started per task:
  * no fiber, no `Deferred`. Order is not kept. docs/adr/0004-default-strategy.md has the
  * measurements behind the design.
  *
  * Every task is handled exactly once; the run completes when every producer has finished and
  * the buffer is drained. A failing handler fails its worker, a failing producer fails the
  * producing side; either cancels everything else and the run fails with that error.
  * Cancelling the run cancels producers and workers; it returns once they have stopped.
  */
object Weir extends Strategy:
  val name = "weir"
  val summary = "weir's default: concurrent chunk producers, bounded buffer, workers taking fair shares"

  def run[F[_]: Async, A](source: Source[F, A], limits: Limits)(handler: A => F[Unit]): F[Unit] =
    Ref.of[F, State[F, A]](State.empty).flatMap { state =>
      val buffer = new Buffer(state, limits.queueCapacity, limits.concurrency)
      val produce =
        source.partitions.parTraverse_(_.chunks.foreach(buffer.offer).compile.drain) >> buffer.close
      def work: F[Unit] = buffer.take.flatMap {
        case Some(tasks) => runAll(tasks, handler) >> work
        case None => Async[F].unit
      }
      (produce, work.parReplicateA_(limits.concurrency)).parTupled.void
    }

  // A share is small (at most queueCapacity / concurrency tasks): a plain loop over a List.
  private def runAll[F[_]: Async, A](tasks: List[A], handler: A => F[Unit]): F[Unit] =
    tasks match
      case task :: Nil => handler(task)
      case task :: rest => handler(task) >> runAll(rest, handler)
      case Nil => Async[F].unit

  /** The buffer's state.
    *
    * Invariants: `0 <= tasks.size <= capacity`; a taker registers in `takers` only when it has
    * found `tasks` empty and `closed` false; every offer wakes one sleeping taker and every take
    * that leaves tasks behind wakes one more (a cascade), so while tasks wait and takers sleep,
    * a woken taker is always on its way. Waking one at a time instead of one per task spares
    * the wake-ups that fast handlers do not need (a busy worker comes back first and stops the
    * cascade by emptying the buffer), while slow handlers still wake every idle worker. An offerer registers in `offerers` only
    * when it has found `tasks` full, and every take wakes all offerers (there are as many as
    * producers, a handful). A woken taker or offerer looks again from the start; a wake-up that
    * finds nothing to do is harmless. Waiters are only ever abandoned when the whole run is
    * cancelled, so a lost wake-up cannot stall a live run.
    */
  private final case class State[F[_], A](
      tasks: Chunk[A],
      closed: Boolean,
      takers: Queue[Deferred[F, Unit]],
      offerers: List[Deferred[F, Unit]],
  )

  private object State:
    def empty[F[_], A]: State[F, A] = State(Chunk.empty, closed = false, Queue.empty, Nil)

  private final class Buffer[F[_], A](state: Ref[F, State[F, A]], capacity: Int, workers: Int)(using
      F: Concurrent[F]
  ):

    // Each step below is one state transition plus the wake-ups it owes, made uncancelable so a
    // transition never happens without its wake-ups; only the waits are cancelable (`poll`).
    // Steps return what is left to do, and the loop continues outside the uncancelable region.

    /** Appends as much of `chunk` as fits, waits for space for the rest. */
    def offer(chunk: Chunk[A]): F[Unit] =
      if chunk.isEmpty then F.unit
      else
        F.deferred[Unit].flatMap { space =>
          F.uncancelable { poll =>
            state.modify { s =>
              val free = capacity - s.tasks.size
              if free <= 0 then (s.copy(offerers = space :: s.offerers), poll(space.get).as(chunk))
              else
                val (now, later) = chunk.splitAt(free)
                val (woken, sleeping) = s.takers.splitAt(1)
                (s.copy(tasks = s.tasks ++ now, takers = sleeping), wake(woken).as(later))
            }.flatten
          }.flatMap(offer)
        }

    /** Marks the end of production and wakes every waiting taker to see it. */
    def close: F[Unit] =
      F.uncancelable(_ => state.modify(s => (s.copy(closed = true, takers = Queue.empty), wake(s.takers))).flatten)

    /** A fair share of the buffered tasks; waits while there are none; `None` once producers
      * have finished and every task has been taken.
      */
    def take: F[Option[List[A]]] =
      F.uncancelable { _ =>
        state.modify { s =>
          if s.tasks.nonEmpty then grab(s)
          else if s.closed then (s, done)
          else (s, mustWait)
        }.flatten
      }.flatMap {
        case Right(taken) => F.pure(taken)
        case Left(()) => waitThenTake
      }

    // Looks again after allocating the Deferred: a task may have arrived meanwhile.
    private def waitThenTake: F[Option[List[A]]] =
      F.deferred[Unit].flatMap { ready =>
        F.uncancelable { poll =>
          state.modify { s =>
            if s.tasks.nonEmpty then grab(s)
            else if s.closed then (s, done)
            else (s.copy(takers = s.takers.enqueue(ready)), poll(ready.get) >> mustWait)
          }.flatten
        }.flatMap {
          case Right(taken) => F.pure(taken)
          case Left(()) => take
        }
      }

    // Right: the outcome of a take; Left: wait (or, after waiting, look again).
    private val done: F[Either[Unit, Option[List[A]]]] = F.pure(Right(None))
    private val mustWait: F[Either[Unit, Option[List[A]]]] = F.pure(Left(()))

    private def grab(s: State[F, A]): (State[F, A], F[Either[Unit, Option[List[A]]]]) =
      val share = math.max(1, s.tasks.size / workers)
      val (mine, rest) = s.tasks.splitAt(share)
      // Tasks left behind and takers asleep: wake the next one (the cascade).
      val (next, sleeping) = if rest.nonEmpty then s.takers.splitAt(1) else (Queue.empty, s.takers)
      val wakes = wake(s.offerers) >> wake(next)
      (s.copy(tasks = rest, offerers = Nil, takers = sleeping), wakes.as(Right(Some(mine.toList))))

    private def wake(waiters: Iterable[Deferred[F, Unit]]): F[Unit] =
      if waiters.isEmpty then F.unit else waiters.toList.traverse_(_.complete(()))
