package weir.engine

/** What the engine does with a task that failed for good (after any retries, see [[RetryPolicy]]).
  */
enum ErrorPolicy:

  /** Stop: take no further task, cancel the tasks in flight, and fail the run with
    * [[weir.WeirError.TaskFailed]] naming the task. The default, as every strategy always did.
    */
  case FailFast

  /** Record and go on: the failure becomes a [[TaskResult]] (task, cause, attempts) and a count in
    * the statistics; the run continues with the next task.
    */
  case Skip
