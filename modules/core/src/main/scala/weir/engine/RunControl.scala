package weir.engine

import cats.effect.kernel.{Async, Deferred, Ref, Resource}
import cats.effect.syntax.all.*
import cats.syntax.all.*
import scala.concurrent.duration.FiniteDuration
import weir.engine.RunState.{Action, End, Event}

/** One run's lifecycle: a `Ref` over its [[RunState]], moved only by [[RunState.next]], and the
  * signals its actions complete.
  *
  * Invariant (besides [[RunState]]'s own): `halted` is complete iff the state has been
  * [[RunState.Stopping]] or [[RunState.CutOff]]; `cut` iff it has been [[RunState.CutOff]];
  * `settled` iff it is [[RunState.Settled]], holding the same outcome. Each transition and its
  * actions run as one uncancelable step, so no waiter sees the state without its signal.
  *
  * [[accepting]] mirrors "tasks may start" in a volatile field, read once per task (or share) on
  * the engine's hot path, where `Ref.get` would cost an allocation: it turns false with the halt,
  * and also when a fail-fast failure refuses further tasks ([[refuseTasks]]), which is not a stop.
  */
private[engine] final class RunControl[F[_]] private (
    grace: FiniteDuration,
    current: Ref[F, RunState],
    halted: Deferred[F, Unit],
    cut: Deferred[F, Unit],
    settled: Deferred[F, RunOutcome]
)(using F: Async[F]):
  @volatile private var taking = true

  /** False once no task may start (a stop, or a fail-fast failure). */
  def accepting: Boolean = taking

  /** No task starts from now on (a fail-fast failure): the state is left as it is. */
  def refuseTasks(): Unit = taking = false

  /** The state now. */
  def state: F[RunState] = current.get

  /** A graceful stop: [[RunState.Stopping]] with the grace period from now. Idempotent. */
  def stop: F[Unit] = F.monotonic.flatMap(now => on(Event.Stop(now, grace)))

  /** A stop that cancels the tasks in flight at once: [[RunState.CutOff]]. Idempotent. */
  def stopNow: F[Unit] = on(Event.StopNow)

  /** Completes when taking is to end (the source halted): at a stop or a stop-now. */
  def halt: F[Unit] = halted.get

  /** Completes when the tasks in flight are to be cancelled: the grace period after a stop is over
    * (the state is then moved to [[RunState.CutOff]]), or a stop-now came. Never, if neither does.
    */
  def cutOff: F[Unit] = halted.get >> current.get.flatMap {
    case RunState.Stopping(deadline) =>
      F.monotonic.flatMap(now => F.race(F.sleep(deadline - now), cut.get)) >> on(Event.GraceOver)
    case _ => cut.get
  }

  /** `work` as the run's work: when it ends, the run is settled with what its ending means. A run
    * stopped before its work began does not begin it.
    */
  def settling(work: F[Unit]): F[Unit] =
    F.defer(if taking then work else F.unit)
      .guaranteeCase(o => ended(Resource.ExitCase.fromOutcome(o)))

  /** The run's work has ended as `exit` says: the run is settled (a stream's finalizer). */
  def ended(exit: Resource.ExitCase): F[Unit] = exit match
    case Resource.ExitCase.Succeeded  => on(Event.Ended(End.Returned))
    case Resource.ExitCase.Errored(e) => on(Event.Ended(End.Raised(e)))
    case Resource.ExitCase.Canceled   => on(Event.Ended(End.Cancelled))

  /** The run's outcome, once it has settled (waits until then). */
  def outcome: F[RunOutcome] = settled.get

  private def on(event: Event): F[Unit] = F.uncancelable { _ =>
    current.modify(RunState.next(_, event)).flatMap(_.traverse_(perform))
  }

  private def perform(action: Action): F[Unit] = action match
    case Action.Halt            => F.delay { taking = false } >> halted.complete(()).void
    case Action.Cut             => cut.complete(()).void
    case Action.Settle(outcome) => settled.complete(outcome).void

private[engine] object RunControl:

  /** A run not yet begun, [[RunState.Running]], whose stops give `grace` to the tasks in flight. */
  def create[F[_]](grace: FiniteDuration)(using F: Async[F]): F[RunControl[F]] =
    (
      Ref.of[F, RunState](RunState.Running),
      Deferred[F, Unit],
      Deferred[F, Unit],
      Deferred[F, RunOutcome]
    ).mapN(new RunControl[F](grace, _, _, _, _))
