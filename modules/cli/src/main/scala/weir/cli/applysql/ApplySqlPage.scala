package weir.cli.applysql

import io.circe.Json
import weir.Durations
import weir.cli.common.{AppliedText, Provenance, Table}
import weir.cli.report.{Html, LineChart, Page, Svg}
import weir.postgres.{ApplyRecorder, ApplyReport}

/** The HTML report of `weir apply-sql`: how it ended, each file's statements, COPY rows, size, time
  * and MB/s, and the rate over time (MB/s; statements and COPY rows per second) from its the
  * apply's [[weir.postgres.ApplyRecorder]]. A dry run or a refused run shows what it would have
  * applied or why not. Pure.
  */
object ApplySqlPage:

  /** The page for `report`, whose JSON report is `data`, made as `provenance` says. */
  def apply(report: ApplySqlReport, data: Json, provenance: Provenance): String =
    val (summary, sections) = report match
      case ApplySqlReport.Refused(error) =>
        "nothing applied" -> List(
          Page.Section("summary", "Summary", s"<p>${Html.escape(error.getMessage)}</p>")
        )
      case ApplySqlReport.DryRun(target, pending, applied, _) =>
        val table = Table(
          List(Table.left("migration"), Table.right("MB"), Table.left("transaction")),
          pending.map(p => List(p.name, mb(p.bytes), if p.transactional then "yes" else "no"))
        )
        s"dry run: ${pending.count(!_.callback)} migration(s) to apply on $target ($applied applied before)" ->
          List(Page.Section("summary", "To apply", Html.table(table)))
      case ApplySqlReport.Status(target, status) =>
        val table = Table(
          ApplySqlRender.statusColumns.map(Table.left),
          ApplySqlRender.statusRows(status)
        )
        s"status of ${status.entries.size} migration(s) on $target" ->
          List(Page.Section("summary", "Migrations", Html.table(table)))
      case ApplySqlReport.Applied(r, _, _, timeline) =>
        s"${ending(r)}, ${Durations.show(r.elapsed)}, on ${r.target}" -> List(
          Page.Section("summary", "Files", Html.table(files(r)) + outcome(r)),
          Page.Section("over-time", "Over time", overTime(timeline))
        )
    Page("weir apply-sql", summary, provenance, sections, data).render

  private def mb(bytes: Long): String = f"${bytes / 1e6}%,.1f"

  private def ending(r: ApplyReport): String = r.outcome match
    case ApplyReport.Outcome.Completed => s"${r.files.size} file(s) applied"
    case ApplyReport.Outcome.Failed(_) => s"failed after ${r.files.size} file(s) applied"
    case ApplyReport.Outcome.Interrupted(_, _) =>
      s"interrupted after ${r.files.size} file(s) applied"

  private def outcome(r: ApplyReport): String = r.outcome match
    case ApplyReport.Outcome.Failed(e) =>
      s"<p><strong>Failed:</strong> ${Html.escape(e.getMessage)}</p>"
    case ApplyReport.Outcome.Interrupted(file, rolledBack) =>
      s"<p>Interrupted${file.fold("")(f => Html.escape(AppliedText.stopped(f, rolledBack)))}.</p>"
    case ApplyReport.Outcome.Completed => ""

  private def files(r: ApplyReport): Table =
    def row(name: String, statements: Long, rows: Long, bytes: Long, seconds: Double) = List(
      name,
      f"$statements%,d",
      f"$rows%,d",
      mb(bytes),
      f"$seconds%.2f",
      if seconds > 0 then f"${bytes / 1e6 / seconds}%,.1f" else ""
    )
    def s(d: scala.concurrent.duration.FiniteDuration) = d.toNanos / 1e9
    Table(
      List(
        Table.left("file"),
        Table.right("statements"),
        Table.right("COPY rows"),
        Table.right("MB"),
        Table.right("seconds"),
        Table.right("MB/s")
      ),
      (r.files.map(f => f.name -> f) ++ r.partly.map(f => AppliedText.partlyName(f.name) -> f))
        .map((name, f) => row(name, f.statements, f.copyRows, f.bytes, s(f.elapsed))) :+
        row("total", r.statements, r.copyRows, r.bytes, s(r.elapsed))
    )

  private def overTime(points: Vector[ApplyRecorder.Point]): String =
    if points.size < 2 then "<p>The apply took less than a second: nothing to draw over time.</p>"
    else
      // Each rate is over the interval before its point, drawn at the point's time.
      val steps = points.sliding(2).toVector.map { pair =>
        val (a, b) = (pair(0), pair(1))
        val dt = math.max(1e-9, (b.at - a.at).toNanos / 1e9)
        (
          b.at.toNanos / 1e9,
          (b.bytes - a.bytes) / 1e6 / dt,
          (b.statements - a.statements) / dt,
          (b.copyRows - a.copyRows) / dt
        )
      }
      val time = LineChart.Axis("seconds since the apply started")
      val bytes = LineChart(
        "MB applied per second",
        time,
        LineChart.Axis("MB/s"),
        List(
          LineChart.Series(
            "MB/s",
            steps.map(s => s._1 -> s._2),
            Svg.colour(0),
            LineChart.Style.Area
          )
        )
      )
      val counts = LineChart(
        "statements and COPY rows per second",
        time,
        LineChart.Axis("per second", log = true),
        List(
          LineChart.Series("statements/s", steps.map(s => s._1 -> s._3), Svg.colour(1)),
          LineChart.Series("COPY rows/s", steps.map(s => s._1 -> s._4), Svg.colour(2))
        )
      )
      List(
        bytes.figure(
          "Throughput",
          "MB of the files applied per second (counted when the server has applied them)."
        ),
        counts.figure("Statements and COPY rows", "Per second, on a log axis.")
      ).map(_.html).mkString("\n")
