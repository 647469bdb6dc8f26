package weir.cli.load

import weir.cli.common.Encode
import weir.cli.common.Args.Format
import weir.Durations
import weir.http.{ErrorClass, LoadReport}

/** Renders a [[LoadReport]] as text, Markdown, CSV or JSON (stdout). */
object LoadRender:

  def apply(format: Format, r: LoadReport, maxErrorRate: Double): String = format match
    case Format.Text     => text(r, maxErrorRate)
    case Format.Markdown => markdown(r)
    case Format.Csv      => csv(r)
    case Format.Json     => json(r)

  private def n(x: Long): String = f"$x%,d"
  private def rate(x: Double): String = f"$x%,.0f req/s"
  private def pct(x: Double): String = f"${x * 100}%.1f %%"
  private def d(nanos: Long): String = Durations.showNanos(nanos.toDouble)

  private def rows(r: LoadReport): List[(String, String)] =
    val l = r.latency
    val errors = ErrorClass.values.toList
      .map(e => s"${e.label} ${n(r.errors.getOrElse(e, 0L))}")
      .mkString(", ")
    val statuses =
      if r.statuses.isEmpty then "none"
      else r.statuses.toList.sorted.map((s, k) => s"$s: ${n(k)}").mkString(", ")
    List(
      "target" -> r.target,
      "concurrency" -> (n(r.concurrency.toLong) + r.rate.fold("")(x =>
        f", rate $x%,.0f/s (open model)"
      )),
      "ending" -> r.ending.describe,
      "elapsed" -> Durations.show(r.elapsed),
      "requests" -> s"${n(r.finished)} finished of ${n(r.launched)} launched${r.planned.fold("")(p => s" (${n(p)} planned)")}, ${n(r.unfinished)} cut off",
      "status codes" -> statuses,
      "errors" -> errors,
      "error rate" -> f"${r.errorRate}%.4f",
      "latency" -> s"p50 ${d(l.p50)}, p90 ${d(l.p90)}, p99 ${d(l.p99)}, p99.9 ${d(l.p999)}, max ${d(l.max)} (mean ${d(l.mean.toLong)})",
      "throughput" -> rate(r.throughput),
      "peak in flight" -> s"${n(r.peakInFlight.toLong)} (bound ${n(r.concurrency.toLong)})"
    ) ++ r.ceiling
      .zip(r.efficiency)
      .map((c, e) => "little's law" -> s"ceiling ${rate(c)}, efficiency ${pct(e)}") ++
      r.finiteIdeal
        .zip(r.finiteEfficiency)
        .map((ideal, e) =>
          "finite-N ideal" -> s"${Durations.show(ideal)} (${rate(r.finiteIdealRate.getOrElse(0.0))}), efficiency ${pct(e)}"
        ) ++ r.warmUp.map(w =>
        "client warm-up" -> w.problem.fold(
          s"${n(w.requests)} requests to weir's own server in ${Durations.show(w.elapsed)}, before the load (not counted)"
        )(why => s"skipped: $why")
      )

  private def text(r: LoadReport, maxErrorRate: Double): String =
    val verdict =
      if r.errorRate <= maxErrorRate then "ok"
      else f"FAILED: error rate ${r.errorRate}%.4f > --max-error-rate $maxErrorRate"
    ((rows(r) :+ ("verdict" -> verdict))
      .map((k, v) => f"  $k%-15s $v"))
      .mkString("weir load\n", "\n", "")

  private def markdown(r: LoadReport): String =
    ("| metric | value |" :: "|---|---|" :: rows(r).map((k, v) =>
      s"| $k | ${v.replace("|", "\\|")} |"
    )).mkString("\n")

  private def fields(r: LoadReport): List[(String, String)] =
    def q(s: String) = Encode.json(s)
    def num(x: Double) = if x.isNaN || x.isInfinite then "null"
    else f"$x%.6f".reverse.dropWhile(_ == '0').dropWhile(_ == '.').reverse
    val l = r.latency
    List(
      "target" -> q(r.target),
      "concurrency" -> r.concurrency.toString,
      "rate" -> r.rate.fold("null")(num),
      "ending" -> q(r.ending.toString.toLowerCase),
      "elapsed_s" -> num(r.elapsed.toNanos / 1e9),
      "planned" -> r.planned.fold("null")(_.toString),
      "launched" -> r.launched.toString,
      "finished" -> r.finished.toString,
      "unfinished" -> r.unfinished.toString,
      "responses" -> r.responses.toString,
      "errors" -> r.errorCount.toString,
      "error_rate" -> num(r.errorRate),
      "throughput_rps" -> num(r.throughput),
      "peak_in_flight" -> r.peakInFlight.toString,
      "p50_ms" -> num(l.p50 / 1e6),
      "p90_ms" -> num(l.p90 / 1e6),
      "p99_ms" -> num(l.p99 / 1e6),
      "p999_ms" -> num(l.p999 / 1e6),
      "max_ms" -> num(l.max / 1e6),
      "mean_ms" -> num(l.mean / 1e6),
      "little_ceiling_rps" -> r.ceiling.fold("null")(num),
      "little_efficiency" -> r.efficiency.fold("null")(num),
      "finite_ideal_s" -> r.finiteIdeal.fold("null")(i => num(i.toNanos / 1e9)),
      "finite_efficiency" -> r.finiteEfficiency.fold("null")(num),
      "warm_up_requests" -> r.warmUp.fold("null")(_.requests.toString),
      "warm_up_s" -> r.warmUp.fold("null")(w => num(w.elapsed.toNanos / 1e9))
    )

  private def json(r: LoadReport): String =
    val statuses = r.statuses.toList.sorted.map((s, k) => s"\"$s\":$k").mkString("{", ",", "}")
    val errors = ErrorClass.values.toList
      .map(e => s"\"${e.label}\":${r.errors.getOrElse(e, 0L)}")
      .mkString("{", ",", "}")
    (fields(r).map((k, v) => s"\"$k\":$v") ++ List(
      s"\"statuses\":$statuses",
      s"\"error_classes\":$errors"
    )).mkString("{", ",", "}")

  private def csv(r: LoadReport): String =
    val fs = fields(r) ++ ErrorClass.values.toList.map(e =>
      s"errors_${e.label}" -> r.errors.getOrElse(e, 0L).toString
    )
    fs.map(_._1).mkString(",") + "\n" + fs.map(_._2).mkString(",")
