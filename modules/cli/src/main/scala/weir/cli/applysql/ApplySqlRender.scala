package weir.cli.applysql

import io.circe.Json
import scala.concurrent.duration.FiniteDuration
import weir.cli.common.AppliedText
import weir.cli.common.AppliedText.mb
import weir.cli.common.Args.Format
import weir.postgres.ApplyReport

/** Renders an [[ApplySqlReport]] as text or JSON (circe) for stdout. Errors themselves go to stderr
  * (see [[ApplySqlCommand]]); this is the summary. Pure: no effects.
  */
object ApplySqlRender:

  /** The summary in `format`: JSON, or text (the command offers no other plain format). */
  def apply(format: Format, report: ApplySqlReport): String = format match
    case Format.Json => json(report).spaces2
    case _           => text(report)

  private def seconds(d: FiniteDuration): Double = d.toNanos / 1e9

  private def text(report: ApplySqlReport): String = report match
    case ApplySqlReport.Refused(_) => AppliedText.nothingApplied
    case ApplySqlReport.DryRun(target, pending, applied, warnings) =>
      val head =
        s"weir apply-sql --dry-run: $applied migration(s) already applied on $target; ${pending.size} to apply:"
      val rows = pending.map(p =>
        f"  ${p.name}%-40s ${mb(p.bytes)}%10s${if p.transactional then "" else "  (no transaction)"}"
      )
      (head :: rows ++ warnings.map("warning: " + _)).mkString("\n")
    case ApplySqlReport.Applied(r, alreadyApplied, warnings, _) =>
      AppliedText(r, alreadyApplied, warnings)

  /** The JSON report (what `--format json` prints, and what the HTML report embeds). */
  def json(report: ApplySqlReport): Json = report match
    case ApplySqlReport.Refused(error) =>
      Json.obj(
        "outcome" -> Json.fromString("refused"),
        "error" -> Json.fromString(error.getMessage)
      )
    case ApplySqlReport.DryRun(target, pending, applied, warnings) =>
      Json.obj(
        "outcome" -> Json.fromString("dry-run"),
        "target" -> Json.fromString(target),
        "already_applied" -> Json.fromInt(applied),
        "pending" -> Json.arr(
          pending.map(p =>
            Json.obj(
              "name" -> Json.fromString(p.name),
              "bytes" -> Json.fromLong(p.bytes),
              "transaction" -> Json.fromBoolean(p.transactional)
            )
          )*
        ),
        "warnings" -> Json.arr(warnings.map(Json.fromString)*)
      )
    case ApplySqlReport.Applied(r, alreadyApplied, warnings, timeline) =>
      val (outcome, error) = r.outcome match
        case ApplyReport.Outcome.Completed      => ("completed", None)
        case ApplyReport.Outcome.Failed(e)      => ("failed", Some(e.getMessage))
        case ApplyReport.Outcome.Interrupted(_) => ("interrupted", None)
      Json.obj(
        "outcome" -> Json.fromString(outcome),
        "error" -> error.fold(Json.Null)(Json.fromString),
        "target" -> Json.fromString(r.target),
        "seconds" -> Json.fromDoubleOrNull(seconds(r.elapsed)),
        "statements" -> Json.fromLong(r.statements),
        "copy_rows" -> Json.fromLong(r.copyRows),
        "bytes" -> Json.fromLong(r.bytes),
        "already_applied" -> alreadyApplied.fold(Json.Null)(Json.fromInt),
        "files" -> Json.arr(
          r.files.map(f =>
            Json.obj(
              "name" -> Json.fromString(f.name),
              "statements" -> Json.fromLong(f.statements),
              "copy_rows" -> Json.fromLong(f.copyRows),
              "bytes" -> Json.fromLong(f.bytes),
              "seconds" -> Json.fromDoubleOrNull(seconds(f.elapsed)),
              "sha256" -> Json.fromString(f.sha256)
            )
          )*
        ),
        "warnings" -> Json.arr((r.warnings ++ warnings).map(Json.fromString)*),
        "timeline" -> Json.arr(
          timeline.map(p =>
            Json.obj(
              "seconds" -> Json.fromDoubleOrNull(seconds(p.at)),
              "bytes" -> Json.fromLong(p.bytes),
              "statements" -> Json.fromLong(p.statements),
              "copy_rows" -> Json.fromLong(p.copyRows)
            )
          )*
        )
      )
