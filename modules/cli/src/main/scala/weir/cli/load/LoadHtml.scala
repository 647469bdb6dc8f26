package weir.cli.load

import io.circe.Json
import weir.cli.common.{Provenance, Table}
import weir.cli.report.{Figure, Html, LineChart, Page, Svg}
import weir.http.LoadReport

/** `weir load`'s HTML report: throughput and requests in flight over time, with the Little's law
  * ceiling and the finite-N ideal drawn as lines; latency percentiles (p50, p99, max) interval by
  * interval; the latency distribution of the whole run on a log axis of percentiles; errors by
  * class over time; and the summary table of the text report. It carries the JSON report that
  * `--format json` prints for the same run. Pure.
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
    page(provenance, summary, charts(report), table, LoadRender.json(report, maxErrorRate))

  /** The page drawn from `charts`, made as `provenance` says.
    *
    * @param summary
    *   one line on what was run (target, requests, concurrency)
    * @param table
    *   the text report's rows (label, value)
    * @param data
    *   the JSON report
    */
  private[load] def page(
      provenance: Provenance,
      summary: String,
      charts: LoadCharts,
      table: Table,
      data: Json
  ): String =
    Page("weir load", summary, provenance, sections(charts, table), data).render

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

  private val time = LineChart.Axis("seconds since the load started")
  private def at(i: LoadCharts.Interval) = i.end

  private def sections(c: LoadCharts, table: Table): List[Page.Section] =
    val points = (f: LoadCharts.Interval => Double) => c.intervals.map(i => at(i) -> f(i))
    val throughput = LineChart(
      "throughput over time",
      time,
      LineChart.Axis("requests finished per second"),
      List(LineChart.Series("req/s", points(_.throughput), Svg.colour(0), LineChart.Style.Area)),
      c.ceiling.map(LineChart.Reference("Little's-law ceiling", _, Svg.colour(1))).toList ++
        c.finiteIdeal.map(LineChart.Reference("finite-N ideal", _, Svg.colour(2))).toList
    )
    val inFlight = LineChart(
      "requests in flight over time",
      time,
      LineChart.Axis("requests in flight"),
      List(
        LineChart
          .Series("in flight", points(_.inFlight.toDouble), Svg.colour(0), LineChart.Style.Area)
      ),
      List(LineChart.Reference("concurrency bound", c.concurrency.toDouble, Svg.colour(1)))
    )
    val latency = LineChart(
      "latency over time",
      time,
      LineChart.Axis("latency, ms"),
      List(
        LineChart.Series("p50", points(_.p50Ms), Svg.colour(0)),
        LineChart.Series("p99", points(_.p99Ms), Svg.colour(1)),
        LineChart.Series("max", points(_.maxMs), Svg.colour(6), LineChart.Style.Dotted)
      )
    )
    val errors = c.errorClasses
    val errorChart = LineChart(
      "errors by class over time",
      time,
      LineChart.Axis("errors per interval"),
      errors.zipWithIndex.map((name, k) =>
        LineChart.Series(name, points(_.errors.getOrElse(name, 0L).toDouble), Svg.colour(k))
      )
    )
    val over = List(
      throughput.figure(
        "Throughput",
        "Requests finished in each interval, per second. The ceiling is concurrency / mean delay; the finite-N ideal is the rate of a client with no overhead over this many requests."
      ),
      inFlight.figure("Requests in flight", "At the end of each interval.")
    ).map(_.html) ++ List(
      latency
        .figure("Latency, interval by interval", "Of the requests answered in each interval.")
        .html,
      if errors.isEmpty then "<p>No request failed.</p>"
      else
        errorChart
          .figure(
            "Errors by class",
            "Requests that failed in each interval: without a response, by why, and answered with a status of 400 or more (status>=400)."
          )
          .html
    )
    List(
      Page.Section("summary", "Summary", Html.table(table)),
      Page.Section("over-time", "Over time", over.mkString("\n")),
      Page.Section("distribution", "Latency distribution", distribution(c).html)
    )

  // Percentiles on a log axis of "nines": 90 % is 1, 99 % is 2, 99.9 % is 3 (-log10 of the rest).
  private def nines(p: Double): Double = -math.log10(math.max(1e-7, 1 - p / 100))

  private def distribution(c: LoadCharts): Figure =
    val top = c.distribution.map(q => nines(q.percentile)).maxOption.getOrElse(3.0)
    val ticks = List(
      0.0 -> "0 %",
      50.0 -> "50 %",
      90.0 -> "90 %",
      99.0 -> "99 %",
      99.9 -> "99.9 %",
      99.99 -> "99.99 %",
      99.999 -> "99.999 %"
    )
      .filter((p, _) => nines(p) <= math.max(3.0, top) + 1e-9)
      .map((p, label) => nines(p) -> label)
    LineChart(
      "latency distribution",
      LineChart.Axis(
        "percentile",
        min = Some(0.0),
        max = Some(math.max(3.0, top)),
        ticks = Some(ticks)
      ),
      LineChart.Axis("latency, ms"),
      List(
        LineChart.Series(
          "latency",
          c.distribution.map(q => nines(q.percentile) -> q.latencyMs),
          Svg.colour(0)
        )
      )
    ).figure(
      "Latency by percentile",
      "The whole run: the latency under which each percentile of requests was answered."
    )
