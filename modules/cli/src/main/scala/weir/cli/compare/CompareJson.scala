package weir.cli.compare

import io.circe.Json
import scala.concurrent.duration.FiniteDuration
import weir.cli.common.RuntimeSyntax.label
import weir.lab.compare.{CompareReport, Timeline}
import weir.lab.workload.Scenario

/** The JSON form of a [[CompareReport]]: the plan (with every scenario's parameters at the plan's
  * scale) and one object per scenario and strategy, with the typical run's timeline as columns of
  * per-interval counts. Times in milliseconds. Pure: no effects.
  */
object CompareJson:

  /** The report as JSON; print it with `noSpaces` or `spaces2`. */
  def apply(report: CompareReport): Json =
    val p = report.plan
    Json.obj(
      "plan" -> Json.obj(
        "runtime" -> Json.fromString(p.runtime.label),
        "scale" -> Json.fromDoubleOrNull(p.scale),
        "repetitions" -> Json.fromInt(p.repetitions),
        "seed" -> Json.fromLong(p.seed),
        "concurrency" -> Json.fromInt(p.limits.concurrency),
        "queue" -> Json.fromInt(p.limits.queueCapacity),
        "scenarios" -> Json.arr(p.scenarios.map(scenario(_, report))*),
        "strategies" -> Json.arr(p.strategies.map(s => Json.fromString(s.name))*)
      ),
      "rows" -> Json.arr(report.rows.map(row)*)
    )

  private def scenario(s: Scenario, report: CompareReport): Json =
    val scaled = s.scaled(report.plan.scale)
    Json.obj(
      "name" -> Json.fromString(s.name),
      "produce_ms" -> millis(scaled.produceDelay),
      "consume_min_ms" -> millis(scaled.consumeMin),
      "consume_max_ms" -> millis(scaled.consumeMax),
      "batch" -> Json.fromInt(s.batchSize),
      "total" -> Json.fromInt(s.total),
      "producers" -> Json.fromInt(s.producers),
      "bound_ms" -> Json.fromLong(scaled.lowerBound(report.plan.limits).toMillis)
    )

  private def row(r: CompareReport.Row): Json =
    def ms(d: Option[FiniteDuration]) = d.fold(Json.Null)(x => Json.fromLong(x.toMillis))
    Json.obj(
      "scenario" -> Json.fromString(r.scenario.name),
      "strategy" -> Json.fromString(r.strategy.name),
      "median_ms" -> ms(r.summary.map(_.median)),
      "min_ms" -> ms(r.summary.map(_.min)),
      "max_ms" -> ms(r.summary.map(_.max)),
      "to_best" -> ratio(r.toBest),
      "to_bound" -> ratio(r.toBound),
      "bound_ms" -> Json.fromLong(r.bound.toMillis),
      "seed_ms" -> ms(r.published),
      "virtual_ms" -> ms(r.virtual),
      "runs" -> Json.arr(r.outcomes.map(o => Json.fromString(o.describe))*),
      "timeline" -> r.timeline.fold(Json.Null)(timeline)
    )

  /** A timeline as columns: `interval_ms` and one array per count, index i for interval i. */
  def timeline(t: Timeline): Json =
    def column(f: Timeline.Bucket => Long) = Json.arr(t.buckets.map(b => Json.fromLong(f(b)))*)
    Json.obj(
      "interval_ms" -> Json.fromLong(t.interval.toMillis),
      "batches" -> column(_.batches),
      "started" -> column(_.started),
      "ended" -> column(_.ended),
      "in_flight" -> column(_.inFlight)
    )

  private def millis(d: FiniteDuration): Json =
    Json.fromBigDecimal(BigDecimal(d.toNanos) / 1000000)

  private def ratio(x: Option[Double]): Json =
    x.filterNot(v => v.isNaN || v.isInfinite)
      .fold(Json.Null)(v =>
        Json.fromBigDecimal(BigDecimal(v).setScale(4, BigDecimal.RoundingMode.HALF_UP))
      )
