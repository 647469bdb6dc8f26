package weir.cli.load

import weir.cli.common.{Provenance, Table}
import weir.cli.report.{LoadCharts, LoadPage}
import weir.http.LoadReport

/** `weir load`'s HTML report: a [[LoadReport]] drawn by [[weir.cli.report.LoadPage]], carrying the
  * JSON report that `--format json` prints for the same run. Pure.
  */
object LoadHtml:

  /** The page for `report`, judged against `maxErrorRate`, made as `provenance` says. */
  def apply(report: LoadReport, maxErrorRate: Double, provenance: Provenance): String =
    val summary = report.planned.fold(s"${report.target} at c = ${report.concurrency}")(n =>
      f"${report.target}: $n%,d requests at c = ${report.concurrency}%,d"
    )
    val table = Table(
      List(Table.left("metric"), Table.left("value")),
      LoadRender.rows(report, maxErrorRate).map((k, v) => List(k, v))
    )
    LoadPage(provenance, summary, charts(report), table, LoadRender.json(report, maxErrorRate))

  /** What the page draws: the timeline, the distribution, the ceilings (ms and seconds). */
  private[load] def charts(r: LoadReport): LoadCharts =
    def ms(nanos: Long, answered: Long) = if answered > 0 then nanos / 1e6 else Double.NaN
    LoadCharts(
      intervals = r.timeline.map(i =>
        LoadCharts.Interval(
          start = i.start.toNanos / 1e9,
          length = i.length.toNanos / 1e9,
          finished = i.finished,
          inFlight = i.inFlight,
          p50Ms = ms(i.p50, i.answered),
          p99Ms = ms(i.p99, i.answered),
          maxMs = ms(i.max, i.answered),
          errors = i.errors
        )
      ),
      distribution = r.distribution.toVector.map((p, nanos) => LoadCharts.Quantile(p, nanos / 1e6)),
      concurrency = r.concurrency,
      ceiling = r.ceiling,
      finiteIdeal = r.finiteIdealRate.filter(_.isFinite)
    )
