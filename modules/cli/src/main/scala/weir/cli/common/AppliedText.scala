package weir.cli.common

import scala.concurrent.duration.FiniteDuration
import weir.Durations
import weir.postgres.ApplyReport

/** The text summary of SQL files applied: a head line, a row per file, the total and the warnings.
  * What `weir apply-sql` prints, and `weir queue init` after it (scripts may read the lines). Pure.
  */
object AppliedText:

  /** `report`'s summary; `alreadyApplied` migrations were applied before (when migrating), and
    * `warnings` are the caller's besides the report's own.
    */
  def apply(report: ApplyReport, alreadyApplied: Option[Int], warnings: Seq[String]): String =
    val what = report.outcome match
      case ApplyReport.Outcome.Completed if report.failed > 0 =>
        s"${report.files.size} file(s) applied, ${report.failed} failed ${plural(report.failed, "statement")} gone past (ON_ERROR_STOP off; the errors are above)"
      case ApplyReport.Outcome.Completed => s"${report.files.size} file(s) applied"
      case ApplyReport.Outcome.Failed(_) =>
        s"failed after ${report.files.size} file(s) applied (the error is above)"
      case ApplyReport.Outcome.Interrupted(file, rolledBack) =>
        s"interrupted after ${report.files.size} file(s) applied${file.fold("")(stopped(_, rolledBack))}"
    val before = alreadyApplied.fold("")(n => s" ($n migration(s) were applied before)")
    val head =
      s"weir apply-sql: $what, ${Durations.show(report.elapsed)}, on ${report.target}$before"
    val named =
      report.files.map(f => f.name -> f) ++ report.partly.map(f => partlyName(f.name) -> f)
    val width = (named.map(_._1.length) :+ 5).max
    def row(name: String, statements: Long, rows: Long, bytes: Long, d: FiniteDuration) =
      val copy = if rows > 0 then f"$rows%,d COPY ${plural(rows, "row")}" else ""
      val said = plural(statements, "statement").padTo(10, ' ')
      f"  ${name.padTo(width, ' ')}  $statements%,10d $said  $copy%18s  ${mb(bytes)}%10s  ${Durations.show(d)}%9s  ${rate(bytes, d)}"
    val files = named.map((name, f) => row(name, f.statements, f.copyRows, f.bytes, f.elapsed))
    val total = row("total", report.statements, report.copyRows, report.bytes, report.elapsed)
    (head :: files ++ List(total) ++ (report.warnings ++ warnings).map("warning: " + _))
      .mkString("\n")

  /** The line when nothing could be applied (the reason is on stderr). */
  val nothingApplied: String = "weir apply-sql: nothing applied (the reason is above)"

  /** A size: bytes below 10 000, kilobytes below a megabyte, else megabytes. */
  def mb(bytes: Long): String =
    if bytes < 10000 then s"$bytes B"
    else if bytes < 1000000 then f"${bytes / 1e3}%,.1f kB"
    else f"${bytes / 1e6}%,.1f MB"

  /** `word`, or its plural when `n` is not one. */
  def plural(n: Long, word: String): String = if n == 1 then word else word + "s"

  /** The row of a file applied in part ([[ApplyReport.partly]]). */
  def partlyName(file: String): String = s"$file (in part)"

  /** Where an interrupted apply stopped: `file` rolled back, or, applied without a transaction,
    * with its statements before the stop applied.
    */
  def stopped(file: String, rolledBack: Boolean): String =
    if rolledBack then s"; $file rolled back"
    else s"; $file stopped (no transaction: its statements before the stop stay applied)"

  private def rate(bytes: Long, d: FiniteDuration): String =
    if d.toNanos <= 0 then "" else f"${bytes / 1e6 / (d.toNanos / 1e9)}%,.1f MB/s"
