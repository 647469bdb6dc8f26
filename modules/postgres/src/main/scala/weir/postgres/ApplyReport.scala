package weir.postgres

import scala.concurrent.duration.FiniteDuration

/** What an apply did: per file, in order, and how it ended. A value, whatever the outcome. */
final case class ApplyReport(
    target: String,
    files: List[ApplyReport.FileDone],
    elapsed: FiniteDuration,
    outcome: ApplyReport.Outcome,
    warnings: List[String]
):
  def statements: Long = files.map(_.statements).sum
  def copyRows: Long = files.map(_.copyRows).sum
  def bytes: Long = files.map(_.bytes).sum

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
