package weir.postgres

import cats.effect.Concurrent
import cats.effect.syntax.all.*
import weir.engine.Run

/** An apply of SQL files under way ([[SqlApplier.start]]): one run of weir's engine, its
  * measurement point and its report, valid while the `Resource` that yields it is in use.
  *
  * '''Stopping.''' Stop it through its run: [[run]]`.stop` or `.stopNow` (Ctrl-C) end it at once
  * (an apply has no grace period): the statement running is cancelled on the server, the COPY in
  * progress abandoned, the file's transaction rolled back, and [[report]] says
  * [[ApplyReport.Outcome.Interrupted]] with the file it was in. Files completed before stay
  * applied. A stop before the run has taken its first step applies nothing.
  *
  * '''Cancellation.''' Releasing the `Resource` before the run has settled cancels it the same way
  * (the release returns once the statement has been cancelled and the transaction rolled back).
  *
  * '''Concurrency.''' Every member may be used from any fiber, any number of times.
  *
  * @param run
  *   the engine's run: its lifecycle, stop, statistics (steps applied) and outcome
  * @param progress
  *   what has been applied so far, and over time ([[ApplyRecorder]])
  * @param report
  *   waits until the run has settled, rolls back what a failure or a stop left open, and returns
  *   the [[ApplyReport]]: completed, failed with the original error (an [[ApplyError]], a
  *   [[SplitError]], a connection error) or interrupted. Never raises for the apply's own failures;
  *   the same report every time.
  */
final class ApplyRun[F[_]] private[postgres] (
    val run: Run[F],
    val progress: ApplyRecorder,
    val report: F[ApplyReport]
):

  /** [[report]], with the run stopped at once ([[weir.engine.Run.stopNow]]) if `signal` completes
    * before the run has settled (a Ctrl-C, a shutdown): the caller's stop becomes the run's.
    */
  def reportStoppingOn(signal: F[Unit])(using F: Concurrent[F]): F[ApplyReport] =
    F.flatMap(signal)(_ => run.stopNow).background.surround(report)
