package weir.engine

import cats.Applicative
import cats.syntax.all.*

/** What measures a run: weir's one extension point for measurement. A recorder is fed every task's
  * result as the task ends and sampled on the run's tick; live views, JSON reports and HTML pages
  * read what recorders keep (a [[Timeline]], counters, histograms), never the engine's internals.
  *
  * Give one to [[Engine.startRecorded]]; combine several with [[Recorder.both]].
  *
  * '''Concurrency.''' [[record]] runs in the task's own fiber, after its last attempt and before
  * its slot is freed: from as many fibers at once as tasks run, so it must be thread-safe, and a
  * slow one slows the run (keep it to counters and histograms). [[sample]] calls never overlap one
  * another: every `tick` of the run, then once more when the run has ended (before its outcome is
  * published, so a reader that waited for the outcome sees every sample).
  *
  * '''Errors.''' An error raised by [[record]] stops the run as a fail-fast failure would and fails
  * it with that error. An error raised by [[sample]] fails the run the same way.
  *
  * '''Cancellation.''' A task cancelled in flight (a stop's grace period ran out, the run was
  * cancelled) has no result and is not recorded: the run's [[Snapshot]] counts it as `cancelled`.
  */
trait Recorder[F[_], -A, -B]:

  /** A task ended: ran to an end (succeeded or failed for good) or was taken and never started. */
  def record(result: TaskResult[A, B]): F[Unit]

  /** The run's tick: its statistics now, with the rate and recent latencies since the tick before
    * (the first, since the start), as [[Engine.snapshots]] gives them.
    */
  def sample(snapshot: Snapshot): F[Unit]

object Recorder:

  /** A recorder of results only (the tick is ignored). */
  def results[F[_]: Applicative, A, B](f: TaskResult[A, B] => F[Unit]): Recorder[F, A, B] =
    new Recorder[F, A, B]:
      def record(result: TaskResult[A, B]): F[Unit] = f(result)
      def sample(snapshot: Snapshot): F[Unit] = Applicative[F].unit

  /** A recorder of ticks only (results are ignored). */
  def ticks[F[_]: Applicative](f: Snapshot => F[Unit]): Recorder[F, Any, Any] =
    new Recorder[F, Any, Any]:
      def record(result: TaskResult[Any, Any]): F[Unit] = Applicative[F].unit
      def sample(snapshot: Snapshot): F[Unit] = f(snapshot)

  /** `first` then `second`, for every result and every tick. */
  def both[F[_]: Applicative, A, B](
      first: Recorder[F, A, B],
      second: Recorder[F, A, B]
  ): Recorder[F, A, B] =
    new Recorder[F, A, B]:
      def record(result: TaskResult[A, B]): F[Unit] = first.record(result) *> second.record(result)
      def sample(snapshot: Snapshot): F[Unit] = first.sample(snapshot) *> second.sample(snapshot)
