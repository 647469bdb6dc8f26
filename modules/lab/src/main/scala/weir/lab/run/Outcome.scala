package weir.lab.run

import scala.concurrent.duration.FiniteDuration

/** How one timed run ended. */
enum Outcome:

  /** Every task was handled; `elapsed` is the wall time from start to the last handler's end. */
  case Completed(elapsed: FiniteDuration)

  /** Nothing was produced or handled for `quietFor`, so the run was given up after `after`. */
  case Deadlocked(after: FiniteDuration, quietFor: FiniteDuration)

  /** The run failed with `error` after `after`. */
  case Failed(error: Throwable, after: FiniteDuration)

  /** The wall time, when the run completed. */
  def completedIn: Option[FiniteDuration] = this match
    case Completed(time) => Some(time)
    case _               => None

  /** One short line for terminals and logs. */
  def describe: String = this match
    case Completed(elapsed)   => s"${elapsed.toMillis} ms"
    case Deadlocked(after, _) => f"deadlocked after ${after.toMillis / 1000.0}%.1f s"
    case Failed(error, _) =>
      s"failed: ${Option(error.getMessage).getOrElse(error.getClass.getSimpleName)}"
