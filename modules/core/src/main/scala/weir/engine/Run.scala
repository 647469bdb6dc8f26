package weir.engine

import scala.concurrent.duration.FiniteDuration

/** A run started by [[Engine.start]] or [[Engine.startTo]]: the handle to stop it, watch it and
  * learn how it ended, valid while its `Resource` is in use.
  *
  * '''Lifecycle.''' One state machine ([[RunState]]): running → stopping (with a deadline) → cut
  * off → settled. [[stop]] ends taking and gives the tasks in flight [[EngineSettings.stopGrace]];
  * [[stopNow]] cancels them at once; either way the run then settles as [[RunOutcome.Stopped]]. A
  * run whose source is exhausted settles as [[RunOutcome.Completed]]; one that fails (fail-fast,
  * the source, a sink) as [[RunOutcome.Failed]], its error kept here and never lost.
  *
  * '''Cancellation.''' Releasing the `Resource` before the run has settled cancels it: tasks in
  * flight are cancelled, the release returns once they have stopped, and the run settles as
  * [[RunOutcome.Cancelled]] (no grace period: use [[stop]] and [[join]] inside `use` for one).
  *
  * '''Concurrency.''' Every method may be called from any fiber at any time, any number of times.
  */
trait Run[F[_]]:

  /** A graceful stop (see [[Run]]); idempotent, returns at once. */
  def stop: F[Unit]

  /** A stop that cancels the tasks in flight now (a second Ctrl-C); idempotent, returns at once. */
  def stopNow: F[Unit]

  /** Where the run is now. */
  def state: F[RunState]

  /** The statistics now (see [[Engine.snapshot]]). */
  def snapshot: F[Snapshot]

  /** A snapshot every `every`, as [[Engine.snapshots]]: until the caller stops pulling. */
  def snapshots(every: FiniteDuration): fs2.Stream[F, Snapshot]

  /** How the run ended: waits until it has settled. */
  def outcome: F[RunOutcome]

  /** Waits until the run has settled, then its final statistics; raises the run's error if it
    * [[RunOutcome.Failed]].
    */
  def join: F[Snapshot]
