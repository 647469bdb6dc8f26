package weir.cli.runtimes

import weir.cli.common.Provenance
import weir.cli.common.RuntimeSyntax.label
import weir.cli.report.{Html, LineChart, Page, Svg}
import weir.runtime.RuntimePreset
import weir.lab.runtimes.{Burst, Seed004}

/** The HTML report of `weir runtimes`: per burst, the time of a burst against its size for each
  * runtime with the seed's figures beside, the microseconds per call warm and cold, the speed-up
  * over work stealing (warm, cold, the seed's), the threads each runtime used, and the table of the
  * text report. Pure.
  */
object RuntimesPage:

  /** The page for `report`, made as `provenance` says. */
  def apply(report: RuntimesReport, provenance: Provenance): String =
    val sections = report.plan.bursts.map(section(report, _))
    Page(
      "weir runtimes",
      RuntimesRender.header(report),
      provenance,
      sections,
      RuntimesJson(report)
    ).render

  private def colour(report: RuntimesReport, runtime: RuntimePreset): String = runtime match
    case RuntimePreset.WorkStealing => Svg.colour(0)
    case RuntimePreset.Virtual      => Svg.colour(1)
    case RuntimePreset.Fixed(_) =>
      val fixed = report.plan.runtimes.collect { case f: RuntimePreset.Fixed => f }
      Svg.colour(2 + math.max(0, fixed.indexOf(runtime)))

  private val processesAxis = LineChart.Axis("fibers (processes)", log = true)

  private def section(report: RuntimesReport, burst: Burst): Page.Section =
    val cells = report.cells.filter(_.burst == burst)
    def byRuntime(value: RuntimesReport.Cell => Option[Double]) =
      report.plan.runtimes.map { runtime =>
        runtime -> cells
          .filter(_.runtime == runtime)
          .sortBy(_.processes)
          .map(c => c.processes.toDouble -> value(c).getOrElse(Double.NaN))
          .toVector
      }
    val seeded = burst == Burst.Blocking
    val seedSeries =
      if !seeded then Nil
      else
        List(
          LineChart.Series(
            "seed: wsp",
            Seed004.rows.map(r => r.processes.toDouble -> r.workStealingMs.toDouble).toVector,
            colour(report, RuntimePreset.WorkStealing),
            LineChart.Style.Dashed
          ),
          LineChart.Series(
            "seed: virtual",
            Seed004.rows.map(r => r.processes.toDouble -> r.virtualMs.toDouble).toVector,
            colour(report, RuntimePreset.Virtual),
            LineChart.Style.Dashed
          )
        )
    val times = LineChart(
      s"${burst.name}: time per burst",
      processesAxis,
      LineChart.Axis("ms per burst (median of the timed bursts)", log = true),
      byRuntime(_.result.millis).map((rt, points) =>
        LineChart.Series(rt.label, points, colour(report, rt), markers = true)
      ) ++ seedSeries
    )
    val perCall = LineChart(
      s"${burst.name}: microseconds per call",
      processesAxis,
      LineChart.Axis("µs of wall time per call", log = true),
      byRuntime(report.microsPerCall).map((rt, points) =>
        LineChart.Series(s"${rt.label}, warm", points, colour(report, rt), markers = true)
      ) ++ byRuntime(report.coldMicrosPerCall).map((rt, points) =>
        LineChart.Series(s"${rt.label}, cold", points, colour(report, rt), LineChart.Style.Dotted)
      )
    )
    val others = report.plan.runtimes.filterNot(_ == RuntimePreset.WorkStealing)
    val speedUp = LineChart(
      s"${burst.name}: speed-up over work stealing",
      processesAxis,
      LineChart.Axis("x wsp (wsp time / this time)"),
      others.flatMap { rt =>
        val warm = byRuntime(report.speedUp).collect { case (`rt`, p) => p }.flatten.toVector
        val cold = byRuntime(report.coldSpeedUp).collect { case (`rt`, p) => p }.flatten.toVector
        List(
          LineChart.Series(s"${rt.label}, warm", warm, colour(report, rt), markers = true),
          LineChart.Series(s"${rt.label}, cold", cold, colour(report, rt), LineChart.Style.Dotted)
        )
      } ++ (if seeded then
              List(
                LineChart.Series(
                  "seed: virtual",
                  Seed004.rows.map(r => r.processes.toDouble -> r.speedUp).toVector,
                  colour(report, RuntimePreset.Virtual),
                  LineChart.Style.Dashed
                )
              )
            else Nil),
      references = List(LineChart.Reference("as fast as wsp", 1.0, "#8a93a1"))
    )
    val threads = LineChart(
      s"${burst.name}: threads",
      processesAxis,
      LineChart.Axis("platform threads", log = true),
      byRuntime(c =>
        Some(c.result.states.getOrElse("TIMED_WAITING", 0).toDouble).filter(_ =>
          c.result.peakThreads > 0
        )
      )
        .map((rt, points) =>
          LineChart.Series(
            s"${rt.label}: timed waiting at the end",
            points,
            colour(report, rt),
            markers = true
          )
        ) ++ byRuntime(c => Some(c.result.peakThreads.toDouble).filter(_ > 0)).map((rt, points) =>
        LineChart.Series(s"${rt.label}: peak", points, colour(report, rt), LineChart.Style.Dotted)
      ) ++ (if seeded then
              List(
                LineChart.Series(
                  "seed: wsp, timed waiting at the end",
                  Seed004.rows
                    .map(r => r.processes.toDouble -> r.wspTimedWaiting.toDouble)
                    .toVector,
                  colour(report, RuntimePreset.WorkStealing),
                  LineChart.Style.Dashed
                )
              )
            else Nil)
    )
    val plan = report.plan
    val measured =
      s"Each cell in a fresh JVM: one cold burst, warm-up bursts until ${plan.warmUpCalls} calls in all, then ${plan.rounds} timed burst(s)."
    val body = List(
      s"<p>${Html.escape(RuntimesRender.burstTitle(report, burst))}. ${Html.escape(measured)}</p>",
      times
        .figure(
          "Time per burst",
          "Median of the timed bursts, log scales." +
            (if seeded then
               " Dashed: seed 004's published times (its cycles per fiber are not stated, so compare shapes and ratios, not heights)."
             else "")
        )
        .html,
      if speedUp.series.exists(_.points.exists((_, y) => !y.isNaN)) then
        speedUp
          .figure(
            "Speed-up over work stealing",
            "Work-stealing time over this runtime's, at each size: above 1 is faster. Warm: the timed bursts after the warm-up; cold: each JVM's first burst."
          )
          .html
      else
        "<p>No speed-up over work stealing to draw: this run has no other runtime that completed beside wsp.</p>"
      ,
      perCall
        .figure(
          "Microseconds per call",
          "A burst's wall time over its calls (processes x cycles): what one call costs with every fiber running at once."
        )
        .html,
      threads
        .figure(
          "Threads",
          "Platform threads timed-waiting when the last burst ended, and the most alive at once (virtual threads are not counted)."
        )
        .html,
      Html.table(
        RuntimesRender.burstTable(report, burst),
        Some(RuntimesRender.burstTitle(report, burst))
      )
    ).mkString("\n")
    Page.Section(burst.name, s"${burst.name} burst", body)
