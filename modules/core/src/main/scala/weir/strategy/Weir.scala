package weir.strategy

import cats.effect.{Async, Concurrent, Deferred, Ref}
import cats.effect.implicits.*
import cats.syntax.all.*
import fs2.Chunk
import scala.collection.immutable.Queue
import scala.concurrent.duration.*
import weir.{Limits, Source}
import weir.strategy.Strategy

/** weir's default: every producer at once, offering whole chunks into one bounded buffer of at most
  * `queueCapacity` tasks, drained by `concurrency` long-lived workers.
  *
  * A worker takes a share of what is buffered in one step and runs it one task after another. The
  * share is at least the fair one, `max(1, buffered / concurrency)`, so with slow handlers every
  * worker still gets work (shares are 1 or 2 tasks and all `concurrency` handlers stay busy). Each
  * worker also times its last share: when its tasks took under [[Weir.greedyBelow]] each, it takes
  * as many as fill about [[Weir.shareBudget]] of work, so with fast handlers a hand-off is paid per
  * hundred tasks, not per task, and holding them keeps no other worker waiting long. The price: if
  * a task in a greedy share turns out slow, the rest of that share (at most `queueCapacity` tasks,
  * typically `shareBudget` worth by the last measure) waits behind it while other workers may idle;
  * the next share of that worker is fair again. Nothing is started per task (no fiber); a worker
  * that finds the buffer empty sleeps on a `Deferred` until woken. Order is not kept.
  * docs/adr/0004-default-strategy.md has the measurements behind the design.
  *
  * Every task is handled exactly once; the run completes when every producer has finished and the
  * buffer is drained. A failing handler fails its worker, a failing producer fails the producing
  * side; either cancels everything else and the run fails with that error. Cancelling the run
  * cancels producers and workers; it returns once they have stopped.
  */
object Weir extends Strategy:
  val name = "weir"
  val summary =
    "weir's default: concurrent chunk producers, bounded buffer, workers taking fair or time-sized shares"

  /** Tasks that took less than this each, in a worker's last share, make its next share greedy. */
  val greedyBelow: FiniteDuration = 20.micros

  /** How much work a greedy share aims at, by the worker's last measure of a task. */
  val shareBudget: FiniteDuration = 100.micros

  def run[F[_]: Async, A](source: Source[F, A], limits: Limits)(handler: A => F[Unit]): F[Unit] =
    runTasks(source, limits)(Tasks.of(handler))

  /** Workers run each share with [[Tasks.share]]. */
  override def runTasks[F[_]: Async, A](source: Source[F, A], limits: Limits)(
      tasks: Tasks[F, A]
  ): F[Unit] = shares(source, limits, None)(tasks)

  /** The producers only fill the buffer: the halt cancels them (see [[Strategy.runTasksUntil]]). */
  override def runTasksUntil[F[_]: Async, A](source: Source[F, A], limits: Limits, halt: F[Unit])(
      tasks: Tasks[F, A]
  ): F[Unit] = shares(source, limits, Some(halt))(tasks)

  private def shares[F[_]: Async, A](source: Source[F, A], limits: Limits, halt: Option[F[Unit]])(
      tasks: Tasks[F, A]
  ): F[Unit] =
    Ref.of[F, State[F, A]](State.empty).flatMap { state =>
      val buffer = new Buffer(state, limits.queueCapacity, limits.concurrency)
      val producers = source.partitions.parTraverse_(_.chunks.foreach(buffer.offer).compile.drain)
      val produce = Strategy.until(producers, halt) >> buffer.close
      // `wanted`: tasks the last share's timing asks for (0 = just the fair share).
      def work(wanted: Int): F[Unit] = buffer.take(wanted).flatMap {
        case Some(share) =>
          tasks.timedShare(share).flatMap(took => work(wish(took, share.size)))
        case None => Async[F].unit
      }
      (produce, work(0).parReplicateA_(limits.concurrency)).parTupled.void
    }

  /** Tasks to ask for next, given that `count` tasks took `took`: 0 unless they were fast. */
  private[strategy] def wish(took: FiniteDuration, count: Int): Int =
    val perTask = took.toNanos / count
    if perTask >= greedyBelow.toNanos then 0
    else (shareBudget.toNanos / math.max(perTask, 1L)).min(Int.MaxValue.toLong).toInt

  /** The buffer's state.
    *
    * Invariants: `0 <= tasks.size <= capacity`. A taker registers in `takers` only when it has
    * found `tasks` empty and `closed` false. `waking` counts takers woken but not yet arrived;
    * whenever tasks wait and takers sleep, `waking > 0`: an offer or a take that leaves tasks
    * behind wakes one sleeper when none is on its way, and that one, on arrival, wakes the next if
    * tasks are still left (a cascade, one hop at a time). So slow handlers still wake every idle
    * worker within microseconds, while with fast handlers a worker back from its share usually
    * empties the buffer before the next hop and most sleepers are never woken. An offerer registers
    * in `offerers` only when it has found `tasks` full, and a take that leaves at most `capacity /
    * 2` tasks wakes all offerers (as many as producers, a handful); workers keep taking while tasks
    * are left, so the buffer always gets there. A woken waiter looks again from the start; a
    * wake-up that finds nothing to do is harmless. A waiter is abandoned only when the run is being
    * cancelled, so a lost wake-up cannot stall a live run.
    */
  private final case class State[F[_], A](
      tasks: Chunk[A],
      closed: Boolean,
      takers: Queue[Deferred[F, Unit]],
      waking: Int,
      offerers: List[Deferred[F, Unit]]
  ):
    /** Wakes the first sleeping taker if tasks are left for it and no woken taker is already on its
      * way (that one will wake the next when it arrives).
      */
    def wakeOneIfNeeded: (State[F, A], Queue[Deferred[F, Unit]]) =
      if tasks.nonEmpty && takers.nonEmpty && waking == 0 then
        val (first, sleeping) = takers.splitAt(1)
        (copy(takers = sleeping, waking = 1), first)
      else (this, Queue.empty)

  private object State:
    def empty[F[_], A]: State[F, A] = State(Chunk.empty, closed = false, Queue.empty, 0, Nil)

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
                val (next, woken) = s.copy(tasks = s.tasks ++ now).wakeOneIfNeeded
                (next, wake(woken).as(later))
            }.flatten
          }.flatMap(offer)
        }

    /** Marks the end of production and wakes every waiting taker to see it. */
    def close: F[Unit] =
      F.uncancelable(_ =>
        state
          .modify(s =>
            (
              s.copy(closed = true, takers = Queue.empty, waking = s.waking + s.takers.size),
              wake(s.takers)
            )
          )
          .flatten
      )

    /** The fair share of the buffered tasks, or `wanted` of them if more (as many as there are at
      * most); waits while there are none; `None` once producers have finished and every task has
      * been taken.
      */
    def take(wanted: Int): F[Option[List[A]]] = takeAs(wanted, arrived = false)

    // `arrived`: this taker was woken and is now arriving, so it is no longer `waking`.
    private def takeAs(wanted: Int, arrived: Boolean): F[Option[List[A]]] =
      F.uncancelable { _ =>
        state.modify { s0 =>
          val s = if arrived then s0.copy(waking = s0.waking - 1) else s0
          if s.tasks.nonEmpty then grab(s, wanted)
          else if s.closed then (s, done)
          else (s, mustWait)
        }.flatten
      }.flatMap {
        case Right(taken) => F.pure(taken)
        case Left(())     => waitThenTake(wanted)
      }

    // Looks again after allocating the Deferred: a task may have arrived meanwhile.
    private def waitThenTake(wanted: Int): F[Option[List[A]]] =
      F.deferred[Unit].flatMap { ready =>
        F.uncancelable { poll =>
          state.modify { s =>
            if s.tasks.nonEmpty then grab(s, wanted)
            else if s.closed then (s, done)
            else (s.copy(takers = s.takers.enqueue(ready)), poll(ready.get) >> mustWait)
          }.flatten
        }.flatMap {
          case Right(taken) => F.pure(taken)
          case Left(())     => takeAs(wanted, arrived = true)
        }
      }

    // Right: the outcome of a take; Left: wait (or, after waiting, look again).
    private val done: F[Either[Unit, Option[List[A]]]] = F.pure(Right(None))
    private val mustWait: F[Either[Unit, Option[List[A]]]] = F.pure(Left(()))

    private def grab(s: State[F, A], wanted: Int): (State[F, A], F[Either[Unit, Option[List[A]]]]) =
      val share = math.max(math.max(1, s.tasks.size / workers), wanted)
      val (mine, rest) = s.tasks.splitAt(share)
      // Producers wait until the buffer is half empty, then refill it in one go: waking them
      // on every take made them add a task or two and sleep again (ADR 0004).
      val (offerers, stillWaiting) =
        if rest.size <= capacity / 2 then (s.offerers, Nil) else (Nil, s.offerers)
      // Tasks left behind and takers asleep: wake the next one (the cascade).
      val (next, woken) = s.copy(tasks = rest, offerers = stillWaiting).wakeOneIfNeeded
      val taken: Either[Unit, Option[List[A]]] = Right(Some(mine.toList))
      // Most takes wake nobody: skip building the wake-up effects then (hot path).
      (
        next,
        if offerers.isEmpty && woken.isEmpty then F.pure(taken)
        else (wake(offerers) >> wake(woken)).as(taken)
      )

    private def wake(waiters: Iterable[Deferred[F, Unit]]): F[Unit] =
      if waiters.isEmpty then F.unit else waiters.toList.traverse_(_.complete(()))
