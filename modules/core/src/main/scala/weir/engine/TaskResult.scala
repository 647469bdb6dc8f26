package weir.engine

import scala.concurrent.duration.FiniteDuration

/** What became of one task.
  *
  * @param task
  *   the task as the source gave it
  * @param index
  *   its place in the order tasks were taken from the source: 0, 1, ... (with several partitions,
  *   the order they were taken in across all of them)
  * @param outcome
  *   its value, or how it failed
  * @param attempts
  *   attempts started (0 for [[TaskOutcome.NotStarted]])
  * @param latency
  *   from its first attempt's start to its end, backoff waits included (zero if not started)
  */
final case class TaskResult[+A, +B](
    task: A,
    index: Long,
    outcome: TaskOutcome[B],
    attempts: Int,
    latency: FiniteDuration
)
