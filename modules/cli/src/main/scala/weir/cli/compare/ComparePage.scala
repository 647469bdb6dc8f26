package weir.cli.compare

import scala.concurrent.duration.FiniteDuration
import weir.cli.common.Provenance
import weir.cli.report.{Html, LaneChart, Page, WhiskerChart}
import weir.lab.compare.CompareReport
import weir.lab.workload.Scenario

/** The HTML report of `weir compare`: per scenario, each strategy's median with its min–max whisker
  * beside the seed's published figure and the scenario's lower bound, the lanes of the run closest
  * to each median (batches, tasks started and ended, in flight over time), and the table of the
  * text report. Pure.
  */
object ComparePage:

  /** The page for `report`, made as `provenance` says. */
  def apply(report: CompareReport, provenance: Provenance): String =
    val sections = report.plan.scenarios.map(section(report, _))
    Page(
      "weir compare",
      CompareRender.header(report),
      provenance,
      sections,
      CompareJson(report)
    ).render

  // Whole milliseconds, as the table shows them.
  private def ms(d: FiniteDuration): Double = d.toMillis.toDouble

  private def section(report: CompareReport, scenario: Scenario): Page.Section =
    val plan = report.plan
    val rows = report.rowsOf(scenario)
    val scaled = scenario.scaled(plan.scale)
    val bound = scaled.lowerBound(plan.limits)
    val times = WhiskerChart(
      s"${scenario.name}: wall time per strategy",
      "ms",
      rows.map { row =>
        WhiskerChart.Row(
          row.strategy.name,
          row.summary.map(s => ms(s.median)),
          row.summary.map(s => ms(s.min)),
          row.summary.map(s => ms(s.max)),
          row.published.map(ms),
          row.problems.distinct.mkString("; ")
        )
      },
      Some("lower bound" -> bound.toMillis.toDouble)
    )
    val repetitions =
      if plan.repetitions > 1 then s"median, min and max of ${plan.repetitions} runs"
      else "one run each"
    val timesNote =
      s"Wall time in ms, $repetitions. The seed's figure is its published time multiplied by the scale (${plan.scale}); " +
        "the lower bound is the least time any strategy can take with these producers and this concurrency."
    val lanes = LaneChart(
      s"${scenario.name}: events over time per strategy",
      rows.flatMap { row =>
        row.timeline.map { t =>
          LaneChart.Lane(
            row.strategy.name,
            t.interval.toNanos / 1e9,
            t.buckets.map(b => LaneChart.Bucket(b.batches, b.started, b.ended, b.inFlight)),
            row.summary.map(_.median.toMillis / 1e3)
          )
        }
      },
      plan.limits.concurrency.toLong,
      scaled.total.toLong,
      Some("lower bound" -> bound.toNanos / 1e9)
    )
    val interval = rows.flatMap(_.timeline).map(_.interval.toMillis).maxOption.getOrElse(0L)
    val lanesNote =
      s"The run closest to each median, from the engine's statistics sampled every $interval ms or less " +
        "(counts per interval; in flight is the highest sample in each). The vertical mark ends the run; the time on the right is the median."
    val body = List(
      s"<p>${Html.escape(CompareRender.describe(scenario, plan))}; lower bound ${bound.toMillis} ms.</p>",
      times.figure("Wall time per strategy", timesNote).html,
      lanes.figure("What happened over time", lanesNote).html,
      Html.table(
        CompareRender.scenarioTable(report, scenario),
        Some(CompareRender.scenarioTitle(report, scenario))
      )
    ).mkString("\n")
    Page.Section(scenario.name, scenario.name, body)
