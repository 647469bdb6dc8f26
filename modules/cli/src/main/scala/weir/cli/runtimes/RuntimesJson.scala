package weir.cli.runtimes

import io.circe.Json
import weir.cli.common.RuntimeSyntax.label

/** The JSON form of a [[RuntimesReport]]: the plan, the JVM, and one object per cell with every
  * timed burst, the cold burst, the ratios and the thread counts. Times in milliseconds. Pure.
  */
object RuntimesJson:

  /** The report as JSON; print it with `noSpaces` or `spaces2`. */
  def apply(report: RuntimesReport): Json =
    val p = report.plan
    Json.obj(
      "plan" -> Json.obj(
        "cycles" -> Json.fromInt(p.cycles),
        "warm_up_calls" -> Json.fromLong(p.warmUpCalls),
        "rounds" -> Json.fromInt(p.rounds),
        "processes" -> Json.arr(p.processes.map(Json.fromInt)*),
        "runtimes" -> Json.arr(p.runtimes.map(r => Json.fromString(r.label))*),
        "bursts" -> Json.arr(p.bursts.map(b => Json.fromString(b.name))*),
        "stall_after_ms" -> Json.fromLong(p.stallAfter.toMillis),
        "jdk" -> Json.fromString(report.jdk),
        "cores" -> Json.fromInt(report.cores)
      ),
      "cells" -> Json.arr(report.cells.map(cell(report, _))*)
    )

  private def cell(report: RuntimesReport, c: RuntimesReport.Cell): Json =
    val r = c.result
    Json.obj(
      "burst" -> Json.fromString(c.burst.name),
      "processes" -> Json.fromInt(c.processes),
      "runtime" -> Json.fromString(c.runtime.label),
      "outcome" -> Json.fromString(r.outcome.describe),
      "ms" -> number(r.millis, 1),
      "rounds_ms" -> Json.arr(r.roundsMillis.map(ms => number(Some(ms), 1))*),
      "warm_up_rounds" -> Json.fromInt(r.warmUpRounds),
      "cold_ms" -> number(r.coldMillis, 1),
      "us_per_call" -> number(report.microsPerCall(c), 3),
      "cold_us_per_call" -> number(report.coldMicrosPerCall(c), 3),
      "x_wsp" -> number(report.speedUp(c), 4),
      "cold_x_wsp" -> number(report.coldSpeedUp(c), 4),
      "seed_ms" -> report.seedMillis(c).fold(Json.Null)(Json.fromInt),
      "seed_x_wsp" -> number(report.seedSpeedUp(c), 4),
      "threads_at_end" -> Json.obj(r.states.toList.sorted.map((k, v) => k -> Json.fromInt(v))*),
      "peak_threads" -> Json.fromInt(r.peakThreads),
      "peak_rss_kb" -> r.peakRssKb.fold(Json.Null)(Json.fromLong)
    )

  private def number(x: Option[Double], digits: Int): Json =
    x.filterNot(v => v.isNaN || v.isInfinite)
      .fold(Json.Null)(v =>
        Json.fromBigDecimal(BigDecimal(v).setScale(digits, BigDecimal.RoundingMode.HALF_UP))
      )
