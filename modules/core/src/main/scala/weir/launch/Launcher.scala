package weir.launch

import cats.effect.kernel.{Deferred, Fiber, Ref, Temporal}
import cats.effect.syntax.all.*
import cats.effect.std.Queue
import cats.syntax.all.*
import fs2.Stream
import scala.concurrent.duration.*

/** Launches many effects with at most `concurrency` in flight, in memory that does not grow with
  * their number.
  *
  * A launch runs `concurrency` long-lived worker fibers (fewer when there are fewer inputs). Each
  * worker takes the next input, runs the handler on it, and takes the next: no fiber, no effect and
  * no input is created ahead of a free worker, so ten million inputs cost what a hundred do.
  * Counted launches hand out indices from a shared counter; streamed launches read the stream into
  * a queue of `concurrency` places that the workers drain.
  *
  * '''Errors.''' An error raised by the handler is counted in [[LaunchStats.failed]] and does not
  * stop the launch. An error raised by the input stream fails the launch (the handlers in flight
  * are cancelled).
  *
  * '''Stopping.''' When `stop` completes, no further input is taken; the launch returns once the
  * effects in flight have finished, with [[LaunchStats.stopped]] set. To bound that wait, race or
  * time out the launch: '''cancelling''' it cancels every worker and every handler in flight, and
  * returns once they have all ended.
  */
object Launcher:

  /** Runs `handle` on the indices `0 until n` (`n >= 0`), each exactly once. */
  def count[F[_]](n: Long, settings: LaunchSettings, stop: Option[Deferred[F, Unit]] = None)(
      handle: Slot[Long] => F[Unit]
  )(using F: Temporal[F]): F[LaunchStats] =
    require(n >= 0, s"the number of effects must not be negative, got $n")
    Ref.of[F, Long](0L).flatMap { next =>
      val take: F[Option[(Long, Long)]] =
        next.modify(i => if i >= n then (i, None) else (i + 1, Some((i, i))))
      run(settings, stop, math.min(n, settings.concurrency.toLong).toInt, take, handle)
    }

  /** Runs `handle` on every element of `inputs`, each exactly once, in the stream's order of start
    * (their ends are in any order). The stream is read ahead by `concurrency` elements at most.
    */
  def stream[F[_], A](
      inputs: Stream[F, A],
      settings: LaunchSettings,
      stop: Option[Deferred[F, Unit]] = None
  )(
      handle: Slot[A] => F[Unit]
  )(using F: Temporal[F]): F[LaunchStats] =
    val workers = settings.concurrency
    Queue.bounded[F, Option[(A, Long)]](workers).flatMap { queue =>
      val stopped = stop.fold(Stream.never[F])(d => Stream.eval(d.get))
      val feed = inputs.zipWithIndex
        .interruptWhen(stopped.as(true))
        .evalMap(item => queue.offer(Some(item)))
        .compile
        .drain
        .guarantee(queue.offer(None).replicateA_(workers))
      feed.background.use { produced =>
        run(settings, stop, workers, queue.take, handle) <* produced.flatMap(_.embedError)
      }
    }

  /** Counters of one launch. Invariant: `0 <= inFlight <= peak <= concurrency`. */
  private final case class State(
      launched: Long,
      inFlight: Int,
      peak: Int,
      succeeded: Long,
      failed: Long
  ):
    def start: State =
      val now = inFlight + 1
      copy(launched = launched + 1, inFlight = now, peak = math.max(peak, now))
    def finish(ok: Boolean): State =
      if ok then copy(inFlight = inFlight - 1, succeeded = succeeded + 1)
      else copy(inFlight = inFlight - 1, failed = failed + 1)

  /** Runs `workers` copies of `worker` as fibers and waits for them all, in the order they started.
    * Cancelling the wait cancels every worker and waits for them to end. A worker does not fail
    * (its handler's errors are counted); should one fail anyway, its error is raised when the wait
    * reaches it, and every worker is cancelled then.
    *
    * Why not `parSequence_`: over thousands of workers it nests a `both` per worker, and its
    * `Parallel` instance initializes all of cats' instances on first use, some 60 ms before the
    * first request of a load (docs/adr/0003-http-stack.md, "The start of a load").
    */
  private def all[F[_]](workers: Int, worker: F[Unit])(using F: Temporal[F]): F[Unit] =
    def startAll(
        left: Int,
        started: List[Fiber[F, Throwable, Unit]]
    ): F[List[Fiber[F, Throwable, Unit]]] =
      if left == 0 then F.pure(started)
      else worker.start.flatMap(fiber => startAll(left - 1, fiber :: started))
    F.uncancelable { poll =>
      startAll(workers, Nil).flatMap { fibers =>
        val joinAll = fibers.foldLeft(F.unit)((joined, fiber) => joined >> fiber.joinWith(F.unit))
        poll(joinAll).guarantee(fibers.foldLeft(F.unit)((done, fiber) => done >> fiber.cancel))
      }
    }

  private def run[F[_], A](
      settings: LaunchSettings,
      stop: Option[Deferred[F, Unit]],
      workers: Int,
      take: F[Option[(A, Long)]],
      handle: Slot[A] => F[Unit]
  )(using F: Temporal[F]): F[LaunchStats] =
    val stopRequested: F[Boolean] = stop.fold(F.pure(false))(_.tryGet.map(_.isDefined))
    (F.monotonic, Ref.of[F, State](State(0, 0, 0, 0, 0))).flatMapN { (start, state) =>
      def due(index: Long): F[FiniteDuration] = settings.intervalNanos match
        case None => F.monotonic
        case Some(interval) =>
          val at = start + (index * interval).toLong.nanos
          F.monotonic.flatMap(now => if now < at then F.sleep(at - now).as(at) else F.pure(at))

      def one(input: A, index: Long): F[Unit] =
        due(index).flatMap { scheduled =>
          // No finalizer: a handler is cancelled only with its whole launch, whose counts no one reads.
          (state.update(_.start) >> handle(Slot(index, input, scheduled))).attempt
            .flatMap(result => state.update(_.finish(result.isRight)))
        }

      lazy val worker: F[Unit] = stopRequested.flatMap { halt =>
        if halt then F.unit
        else
          take.flatMap {
            case None                 => F.unit
            case Some((input, index)) => one(input, index) >> worker
          }
      }

      all(workers, worker) >> (F.monotonic, state.get, stopRequested).mapN { (end, s, halted) =>
        LaunchStats(s.launched, s.succeeded, s.failed, s.peak, end - start, halted)
      }
    }
