package weir.engine

/** How a run ended (see [[RunState.Settled]]). */
enum RunOutcome:

  /** The source was exhausted and every task taken from it ended. */
  case Completed

  /** A stop ended the run before the source was exhausted. `cutOff` when the grace period ran out
    * (or [[Engine.stopNow]] cut it short) with tasks still in flight, which were then cancelled;
    * otherwise every task in flight finished within it.
    */
  case Stopped(cutOff: Boolean)

  /** The run failed with `error`: a task under [[ErrorPolicy.FailFast]] (a
    * [[weir.WeirError.TaskFailed]]), the source, or a sink.
    */
  case Failed(error: Throwable)

  /** The run was cancelled from outside (its fiber, or the [[Run]] resource released early). */
  case Cancelled
