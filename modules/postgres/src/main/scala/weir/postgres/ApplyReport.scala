package weir.postgres

import scala.concurrent.duration.FiniteDuration

/** What an apply did: per file, in order, and how it ended. A value, whatever the outcome.
  *
  * `files` are those applied to their end. `partly` is the file a failure or a stop came in when it
  * ran without a transaction (`--no-transaction`, or a migration marked `-- weir: no-transaction`)
  * and some of it was applied: its statements before the failure or the stop stay, and are counted
  * here (`bytes`: up to the end of the last of them). The totals count both. `failed`: the
  * statements that failed and were gone past ([[ApplySettings.withStopAtError]] off), not counted
  * in `statements`; an apply with any is `Completed` all the same.
  */
final case class ApplyReport(
    target: String,
    files: List[ApplyReport.FileDone],
    elapsed: FiniteDuration,
    outcome: ApplyReport.Outcome,
    warnings: List[String],
    partly: Option[ApplyReport.FileDone] = None,
    failed: Long = 0
):
  private def applied: List[ApplyReport.FileDone] = files ++ partly
  def statements: Long = applied.map(_.statements).sum
  def copyRows: Long = applied.map(_.copyRows).sum
  def bytes: Long = applied.map(_.bytes).sum

object ApplyReport:

  /** A file applied to its end: committed if it had a transaction of its own; `sha256` is empty
    * unless checksums were asked for (migrations).
    */
  final case class FileDone(
      name: String,
      statements: Long,
      copyRows: Long,
      bytes: Long,
      elapsed: FiniteDuration,
      sha256: String
  )

  enum Outcome:
    /** Every file was applied. */
    case Completed

    /** Applying stopped at `error`; files before it stay applied, its own file as `error` says. */
    case Failed(error: Throwable)

    /** Stopped by a cancellation (Ctrl-C) in `file`, whose transaction was rolled back;
      * `rolledBack` false for a file applied without one (its statements before the stop stay
      * applied).
      */
    case Interrupted(file: Option[String], rolledBack: Boolean = true)
