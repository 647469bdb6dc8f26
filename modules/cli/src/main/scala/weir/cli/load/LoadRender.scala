package weir.cli.load

import io.circe.Json
import io.circe.syntax.*
import weir.Durations
import weir.cli.common.Args.Format
import weir.http.{ErrorClass, LoadReport, LoadTimeline}

/** Renders a [[LoadReport]] as text, Markdown, CSV or JSON (stdout). Pure.
  *
  * The JSON has every field of the report (circe builds it); the CSV is one header line and one row
  * of the same scalar fields plus one column per status code and per error class (empty cells for
  * what does not apply, never `null`); the timeline (interval by interval) is in the JSON only.
  * `failures` counts what `error_rate` divides: requests without a response plus responses with a
  * status of 400 or more.
  */
object LoadRender:

  def apply(format: Format, r: LoadReport, maxErrorRate: Double): String = format match
    case Format.Text     => text(r, maxErrorRate)
    case Format.Markdown => markdown(r, maxErrorRate)
    case Format.Csv      => csv(r)
    case Format.Json     => json(r, maxErrorRate).noSpaces

  private def n(x: Long): String = f"$x%,d"
  private def rate(x: Double): String = f"$x%,.0f req/s"
  private def pct(x: Double): String = f"${x * 100}%.1f %%"
  private def d(nanos: Long): String = Durations.showNanos(nanos.toDouble)

  /** The text report's rows: label and value. */
  private[load] def rows(r: LoadReport, maxErrorRate: Double): List[(String, String)] =
    val l = r.latency
    val errors =
      if r.errors.isEmpty then "none"
      else
        ErrorClass.values.toList
          .flatMap(e => r.errors.get(e).map(k => s"${e.label} ${n(k)}"))
          .mkString(", ")
    val statuses =
      if r.statuses.isEmpty then "none"
      else r.statuses.toList.sorted.map((s, k) => s"$s: ${n(k)}").mkString(", ")
    val concurrency = r.adaptive match
      case Some((lo, hi)) => s"auto ($lo..$hi), ended at ${n(r.concurrency.toLong)}"
      case None           => n(r.concurrency.toLong)
    List(
      "target" -> r.target
    ) ++ r.tls.map("tls" -> _) ++ r.sessions.map("tls engine" -> _.describe) ++ r.protocolLine.map(
      "protocol" -> _
    ) ++ List(
      "concurrency" -> (concurrency + r.rate.fold("")(x => f", rate $x%,.0f/s (open model)")),
      "ending" -> r.ending.describe,
      "elapsed" -> Durations.show(r.elapsed),
      "requests" -> s"${n(r.finished)} finished of ${n(r.launched)} launched${r.planned.fold("")(p => s" (${n(p)} planned)")}, ${n(r.unfinished)} cut off",
      "retries" -> n(r.retries),
      "status codes" -> statuses,
      "no answer" -> errors,
      "failures" -> s"${n(r.failures)} (no response or status >= 400), error rate ${f"${r.errorRate}%.4f"}",
      "latency" -> s"p50 ${d(l.p50)}, p90 ${d(l.p90)}, p99 ${d(l.p99)}, p99.9 ${d(l.p999)}, max ${d(l.max)} (mean ${d(l.mean.toLong)})",
      "throughput" -> rate(r.throughput),
      "peak in flight" -> s"${n(r.peakInFlight.toLong)} (bound ${n(r.concurrency.toLong)})"
    ) ++ r.clientCpu.map(cpu =>
      "client CPU" -> (Durations.show(cpu) + r.cpuPerRequestMillis.fold("")(ms =>
        f", $ms%.3f ms per request"
      ) + " (this process during the load; not its start or warm-up)")
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
      ) ++ ErrorClass.values.toList.flatMap(e =>
        r.samples.get(e).map(msg => s"${e.label} e.g." -> (msg + e.hint.fold("")(h => s" ($h)")))
      ) ++ r.badLines.map(b => s"line ${b.line}" -> b.reason) :+
      ("verdict" -> r.verdict(maxErrorRate).describe)

  private def text(r: LoadReport, maxErrorRate: Double): String =
    val all = rows(r, maxErrorRate)
    val width = all.map(_._1.length).max
    all.map((k, v) => s"  ${k.padTo(width, ' ')}  $v").mkString("weir load\n", "\n", "")

  private def markdown(r: LoadReport, maxErrorRate: Double): String =
    ("| metric | value |" :: "|---|---|" :: rows(r, maxErrorRate).map((k, v) =>
      s"| $k | ${v.replace("|", "\\|")} |"
    )).mkString("\n")

  /** The report's scalar fields, as JSON values (null where a field does not apply). */
  private def fields(r: LoadReport): List[(String, Json)] =
    val l = r.latency
    def ms(nanos: Double) = (nanos / 1e6).asJson
    List(
      "target" -> r.target.asJson,
      "tls" -> r.tls.asJson,
      "tls_insecure" -> r.insecure.asJson,
      "tls_engine" -> r.sessions.map(_.engine.name).asJson,
      "tls_handshakes" -> r.sessions.map(_.handshakes).asJson,
      "tls_resumed" -> r.sessions.flatMap(_.resumed).asJson,
      "tls_version" -> r.sessions.flatMap(_.versionLine).asJson,
      "protocol" -> r.protocolLine.asJson,
      "connections_by_protocol" -> Option.when(r.protocols.nonEmpty)(r.protocols).asJson,
      "concurrency" -> r.concurrency.asJson,
      "concurrency_min" -> r.adaptive.map(_._1).asJson,
      "concurrency_max" -> r.adaptive.map(_._2).asJson,
      "rate" -> r.rate.asJson,
      "ending" -> r.ending.toString.toLowerCase.asJson,
      "elapsed_s" -> (r.elapsed.toNanos / 1e9).asJson,
      "planned" -> r.planned.asJson,
      "launched" -> r.launched.asJson,
      "finished" -> r.finished.asJson,
      "unfinished" -> r.unfinished.asJson,
      "retries" -> r.retries.asJson,
      "responses" -> r.responses.asJson,
      "no_response" -> r.errorCount.asJson,
      "error_responses" -> r.errorResponses.asJson,
      "failures" -> r.failures.asJson,
      "error_rate" -> r.errorRate.asJson,
      "throughput_rps" -> r.throughput.asJson,
      "peak_in_flight" -> r.peakInFlight.asJson,
      "client_cpu_s" -> r.clientCpu.map(_.toNanos / 1e9).asJson,
      "client_cpu_ms_per_request" -> r.cpuPerRequestMillis.asJson,
      "p50_ms" -> ms(l.p50.toDouble),
      "p90_ms" -> ms(l.p90.toDouble),
      "p99_ms" -> ms(l.p99.toDouble),
      "p999_ms" -> ms(l.p999.toDouble),
      "max_ms" -> ms(l.max.toDouble),
      "mean_ms" -> ms(l.mean),
      "little_ceiling_rps" -> r.ceiling.asJson,
      "little_efficiency" -> r.efficiency.asJson,
      "finite_ideal_s" -> r.finiteIdeal.map(_.toNanos / 1e9).asJson,
      "finite_efficiency" -> r.finiteEfficiency.asJson,
      "warm_up_requests" -> r.warmUp.map(_.requests).asJson,
      "warm_up_s" -> r.warmUp.map(_.elapsed.toNanos / 1e9).asJson
    )

  def json(r: LoadReport, maxErrorRate: Double): Json =
    Json.fromFields(
      fields(r) ++ List(
        "verdict" -> r.verdict(maxErrorRate).describe.asJson,
        "statuses" -> Json.fromFields(
          r.statuses.toList.sorted.map((s, k) => s.toString -> k.asJson)
        ),
        "errors" -> Json.fromFields(
          ErrorClass.values.toList.map(e => e.label -> r.errors.getOrElse(e, 0L).asJson)
        ),
        "error_samples" -> Json.fromFields(r.samples.toList.map((e, m) => e.label -> m.asJson)),
        "bad_lines" -> r.badLines
          .map(b =>
            Json.obj("line" -> b.line.asJson, "text" -> b.text.asJson, "reason" -> b.reason.asJson)
          )
          .asJson,
        "latency_distribution" -> r.distribution
          .map((p, nanos) => Json.obj("percentile" -> p.asJson, "ms" -> (nanos / 1e6).asJson))
          .asJson,
        "timeline" -> r.timeline.map(interval).asJson
      )
    )

  /** One interval of the timeline; its latencies are null when nothing was answered in it. */
  private def interval(i: LoadTimeline.Interval): Json =
    def ms(nanos: Long) = Option.when(i.answered > 0)(nanos / 1e6).asJson
    Json.obj(
      "start_s" -> (i.start.toNanos / 1e9).asJson,
      "length_s" -> (i.length.toNanos / 1e9).asJson,
      "finished" -> i.finished.asJson,
      "answered" -> i.answered.asJson,
      "in_flight" -> i.inFlight.asJson,
      "p50_ms" -> ms(i.p50),
      "p99_ms" -> ms(i.p99),
      "max_ms" -> ms(i.max),
      "failures" -> Json.fromFields(i.errors.toList.sorted.map((k, n) => k -> n.asJson))
    )

  private def csv(r: LoadReport): String =
    def cell(j: Json): String =
      j.fold("", _.toString, _.toString, s => quote(s), _ => "", _ => "")
    def quote(s: String) =
      if s.exists(c => c == ',' || c == '"' || c == '\n') then "\"" + s.replace("\"", "\"\"") + "\""
      else s
    val columns = fields(r).map((k, v) => k -> cell(v)) ++
      r.statuses.toList.sorted.map((s, k) => s"status_$s" -> k.toString) ++
      ErrorClass.values.toList.map(e => s"errors_${e.label}" -> r.errors.getOrElse(e, 0L).toString)
    columns.map(_._1).mkString(",") + "\n" + columns.map(_._2).mkString(",")
