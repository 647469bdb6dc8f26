package weir.engine

import scala.concurrent.duration.FiniteDuration

/** Where a run is in its life: `Running` → `Stopping` → `CutOff` → `Settled`.
  *
  * '''Invariant.''' The state only moves forward in that order, and may skip a step (a run that
  * ends on its own goes from `Running` to `Settled`; [[Engine.stopNow]] goes from `Running` to
  * `CutOff`); once `Settled` it never changes. Whatever the state, a request that does not move it
  * forward (a second stop, a stop after the end) changes nothing.
  *
  * What each state means for the tasks:
  *   - `Running`: tasks are taken from the source and started;
  *   - `Stopping`: none is taken or started any more; those in flight may finish until `deadline`
  *     (on the run's monotonic clock: the stop's time plus [[EngineSettings.stopGrace]]);
  *   - `CutOff`: the grace period is over (or was cut short): those still in flight are being
  *     cancelled;
  *   - `Settled`: the run has ended, as `outcome` says; no fiber of it is left.
  */
enum RunState:
  case Running
  case Stopping(deadline: FiniteDuration)
  case CutOff
  case Settled(outcome: RunOutcome)

object RunState:

  /** What happens to a run: what [[next]] is told. */
  private[engine] enum Event:
    /** A graceful stop asked at `now`, with `grace` for the tasks in flight. */
    case Stop(now: FiniteDuration, grace: FiniteDuration)

    /** A stop that cancels the tasks in flight at once. */
    case StopNow

    /** The grace period of a stop has run out. */
    case GraceOver

    /** The run's work has ended: on its own, with an error, or cancelled. */
    case Ended(how: End)

  /** How the run's work ended, before the state says what that means. */
  private[engine] enum End:
    case Returned
    case Raised(error: Throwable)
    case Cancelled

  /** What a transition owes, performed after the state has changed. */
  private[engine] enum Action:
    /** Take no more tasks: the source is halted and nothing starts from now on. */
    case Halt

    /** Cancel the tasks in flight. */
    case Cut

    /** Publish the run's outcome to whoever waits for it. */
    case Settle(outcome: RunOutcome)

  /** The state after `event` in `state`, and the actions that the move owes (in order). Pure: the
    * one place where the run's lifecycle is decided.
    */
  private[engine] def next(state: RunState, event: Event): (RunState, List[Action]) =
    (state, event) match
      case (Running, Event.Stop(now, grace)) => (Stopping(now + grace), List(Action.Halt))
      case (Running, Event.StopNow)          => (CutOff, List(Action.Halt, Action.Cut))
      case (Stopping(_), Event.StopNow)      => (CutOff, List(Action.Cut))
      case (Stopping(_), Event.GraceOver)    => (CutOff, List(Action.Cut))
      case (Settled(_), _)                   => (state, Nil)
      case (_, Event.Ended(how)) =>
        val outcome = outcomeOf(state, how)
        (Settled(outcome), List(Action.Settle(outcome)))
      case _ => (state, Nil)

  private def outcomeOf(state: RunState, how: End): RunOutcome = how match
    case End.Raised(error) => RunOutcome.Failed(error)
    case End.Cancelled     => RunOutcome.Cancelled
    case End.Returned =>
      state match
        case Stopping(_) => RunOutcome.Stopped(cutOff = false)
        case CutOff      => RunOutcome.Stopped(cutOff = true)
        case _           => RunOutcome.Completed
