package weir.cli.applysql

import io.circe.Json
import scala.concurrent.duration.FiniteDuration
import weir.cli.common.AppliedText
import weir.cli.common.AppliedText.mb
import weir.cli.common.Args.Format
import weir.postgres.{ApplyReport, MigrationStatus}

/** Renders an [[ApplySqlReport]] as text or JSON (circe) for stdout. Errors themselves go to stderr
  * (see [[ApplySqlCommand]]); this is the summary. Pure: no effects.
  */
object ApplySqlRender:

  /** The summary in `format`: JSON, or text (the command offers no other plain format). */
  def apply(format: Format, report: ApplySqlReport): String = format match
    case Format.Json => json(report).spaces2
    case _           => text(report)

  private def seconds(d: FiniteDuration): Double = d.toNanos / 1e9

  private def fileJson(f: ApplyReport.FileDone): Json = Json.obj(
    "name" -> Json.fromString(f.name),
    "statements" -> Json.fromLong(f.statements),
    "copy_rows" -> Json.fromLong(f.copyRows),
    "bytes" -> Json.fromLong(f.bytes),
    "seconds" -> Json.fromDoubleOrNull(seconds(f.elapsed)),
    "sha256" -> Json.fromString(f.sha256)
  )

  private def text(report: ApplySqlReport): String = report match
    case ApplySqlReport.Refused(_) => AppliedText.nothingApplied
    case ApplySqlReport.DryRun(target, pending, applied, warnings) =>
      val callbacks = pending.count(_.callback)
      val also = if callbacks == 0 then "" else s" (and $callbacks Flyway callback(s))"
      val head =
        s"weir apply-sql --dry-run: $applied migration(s) already applied on $target; ${pending.size - callbacks} to apply$also, nothing applied now"
      val files = pending.map { p =>
        val inside =
          if p.inside.isEmpty then "" else s", with ${p.inside.mkString(", ")} inside it"
        val how = (if p.transactional then "in a transaction" else "no transaction") + inside
        val copy = if p.copyRows > 0 then s", ${p.copyRows} COPY row(s)" else ""
        val title =
          s"-- ${p.name}${p.version.fold("")(v => s" (version $v)")}: ${p.statements.size} statement(s)$copy, ${mb(p.bytes)}, $how"
        (title :: p.statements.map(_ + ";") ++ p.notes.map("-- " + _)).mkString("\n")
      }
      (head :: files ++ warnings.map("warning: " + _)).mkString("\n\n")
    case ApplySqlReport.Status(target, status) =>
      val counts = MigrationStatus.State.values.toList
        .map(st => st -> status.entries.count(_.state == st))
        .filter((st, n) => n > 0 || st == MigrationStatus.State.Pending)
        .map((st, n) => s"$n ${st.label}")
        .mkString(", ")
      val rows = statusColumns :: statusRows(status)
      val widths = statusColumns.indices.map(i => rows.map(_(i).length).max)
      val table =
        rows.map(r => r.zip(widths).map((c, w) => c.padTo(w, ' ')).mkString("  ").stripTrailing)
      (s"weir apply-sql --status on $target: $counts" :: table.map("  " + _) ++
        status.warnings.map("warning: " + _)).mkString("\n")
    case ApplySqlReport.Applied(r, alreadyApplied, warnings, _) =>
      AppliedText(r, alreadyApplied, warnings)

  /** The JSON report (what `--format json` prints, and what the HTML report embeds). */
  def json(report: ApplySqlReport): Json = report match
    case ApplySqlReport.Refused(error) =>
      Json.obj(
        "outcome" -> Json.fromString("refused"),
        "error" -> Json.fromString(error.getMessage)
      )
    case ApplySqlReport.Status(target, status) =>
      Json.obj(
        "outcome" -> Json.fromString("status"),
        "target" -> Json.fromString(target),
        "migrations" -> Json.arr(
          status.entries.map(e =>
            Json.obj(
              "version" -> e.version.fold(Json.Null)(Json.fromString),
              "name" -> Json.fromString(e.name),
              "kind" -> Json.fromString(e.kind),
              "state" -> Json.fromString(e.state.label),
              "applied_at" -> e.appliedAt.filter(_.nonEmpty).fold(Json.Null)(Json.fromString),
              "by" -> e.by.fold(Json.Null)(Json.fromString)
            )
          )*
        ),
        "warnings" -> Json.arr(status.warnings.map(Json.fromString)*)
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
              "transaction" -> Json.fromBoolean(p.transactional),
              "version" -> p.version.fold(Json.Null)(Json.fromString),
              "copy_rows" -> Json.fromLong(p.copyRows),
              "callback" -> Json.fromBoolean(p.callback),
              "callbacks_inside" -> Json.arr(p.inside.map(Json.fromString)*),
              "statements" -> Json.arr(p.statements.map(Json.fromString)*),
              "notes" -> Json.arr(p.notes.map(Json.fromString)*)
            )
          )*
        ),
        "warnings" -> Json.arr(warnings.map(Json.fromString)*)
      )
    case ApplySqlReport.Applied(r, alreadyApplied, warnings, timeline) =>
      val (outcome, error) = r.outcome match
        case ApplyReport.Outcome.Completed         => ("completed", None)
        case ApplyReport.Outcome.Failed(e)         => ("failed", Some(e.getMessage))
        case ApplyReport.Outcome.Interrupted(_, _) => ("interrupted", None)
      Json.obj(
        "outcome" -> Json.fromString(outcome),
        "error" -> error.fold(Json.Null)(Json.fromString),
        "target" -> Json.fromString(r.target),
        "seconds" -> Json.fromDoubleOrNull(seconds(r.elapsed)),
        "statements" -> Json.fromLong(r.statements),
        // Statements that failed and were gone past (ON_ERROR_STOP off).
        "failed" -> Json.fromLong(r.failed),
        "copy_rows" -> Json.fromLong(r.copyRows),
        "bytes" -> Json.fromLong(r.bytes),
        "already_applied" -> alreadyApplied.fold(Json.Null)(Json.fromInt),
        "files" -> Json.arr(r.files.map(fileJson)*),
        // The file stopped in without a transaction: what of it stays applied.
        "partly" -> r.partly.fold(Json.Null)(fileJson),
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

  /** The columns of the `--status` table. */
  val statusColumns: List[String] =
    List("version", "migration", "kind", "state", "applied at", "by")

  /** The `--status` table's rows, one per migration. */
  def statusRows(status: MigrationStatus): List[List[String]] =
    status.entries.map(e =>
      List(
        e.version.getOrElse("-"),
        e.name,
        e.kind,
        e.state.label,
        e.appliedAt.filter(_.nonEmpty).getOrElse("-"),
        e.by.getOrElse("-")
      )
    )
