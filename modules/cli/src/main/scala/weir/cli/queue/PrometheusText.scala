package weir.cli.queue

import scala.concurrent.duration.FiniteDuration
import weir.postgres.queue.Worker

/** A worker's progress as Prometheus's text exposition format (version 0.0.4), the page `weir
  * worker --metrics` serves at `/metrics`: counters since the worker started, the jobs' outcomes by
  * kind, the jobs in flight, the handlers' latency quantiles (of every job so far), the claim and
  * acknowledgement latencies as histograms, and the queue's depth, each labelled with the queue.
  *
  * Written by hand: the format of a few dozen samples is a few lines of text, and a client library
  * would keep a second registry of what the run's recorder and [[WorkerTally]] already count (ADR
  * 0009).
  */
object PrometheusText:

  /** The exposition's content type, which [[MetricsServer]] serves the page with. */
  val contentType: String = "text/plain; version=0.0.4; charset=utf-8"

  /** The page for `queue`, from the worker's latest `progress` (none before its first tick: the
    * counters are then 0), the `tally` of its events, and the queue's `depth` (none when it could
    * not be read).
    */
  def apply(
      queue: String,
      progress: Option[Worker.Progress],
      tally: WorkerTally.Tally,
      depth: Option[Long]
  ): String =
    val label = s"""queue="${escape(queue)}""""
    val counts = progress.map(_.counts).getOrElse(Worker.Counts.zero)
    val written = counts.written
    val engine = progress.map(_.engine)
    val kinds = tally.byKind.toVector.sortBy(_._1)
    val out = new StringBuilder

    def metric(name: String, kind: String, help: String)(samples: (String, Double)*): Unit =
      out.append(s"# HELP $name $help\n# TYPE $name $kind\n")
      samples.foreach((labels, v) => out.append(s"$name{$labels} ${number(v)}\n"))

    def byKind(name: String, help: String)(count: WorkerTally.Outcomes => Long): Unit =
      metric(name, "counter", help)(
        kinds.map((k, o) => s"""$label,kind="${escape(k)}"""" -> count(o).toDouble)*
      )

    def histogram(name: String, help: String, h: WorkerTally.Histogram): Unit =
      out.append(s"# HELP $name $help\n# TYPE $name histogram\n")
      val les = WorkerTally.bounds.map(plain) :+ "+Inf"
      les
        .zip(h.cumulative)
        .foreach((le, n) => out.append(s"""${name}_bucket{$label,le="$le"} $n\n"""))
      out.append(s"${name}_sum{$label} ${number(h.sum)}\n")
      out.append(s"${name}_count{$label} ${h.count}\n")

    byKind("weir_jobs_completed_total", "Jobs whose handler succeeded, by kind.")(_.completed)
    byKind(
      "weir_jobs_failed_total",
      "Attempts that failed (or timed out), by kind: retried later or the last."
    )(_.failed)
    byKind("weir_jobs_retried_total", "Failed attempts whose job runs again, by kind.")(_.retried)
    byKind(
      "weir_jobs_discarded_total",
      "Jobs discarded, by kind: after their last attempt, or by their handler."
    )(_.discarded)
    metric(
      "weir_jobs_rejected_total",
      "counter",
      "Completions or failures refused because the job was no longer held under that attempt."
    )(label -> written.rejected.toDouble)
    metric("weir_jobs_claimed_total", "counter", "Jobs claimed.")(
      label -> counts.claimedJobs.toDouble
    )
    metric("weir_claims_total", "counter", "Claim statements run.")(label -> counts.claims.toDouble)
    metric("weir_leases_lost_total", "counter", "Jobs whose lease this worker lost.")(
      label -> counts.lostLeases.toDouble
    )
    metric(
      "weir_connections_lost_total",
      "counter",
      "Times one of the worker's connections was lost and reopened."
    )(label -> progress.fold(0L)(_.lostConnections).toDouble)
    metric(
      "weir_events_dropped_total",
      "counter",
      "Worker events these metrics lost, falling behind: the counts by kind miss them."
    )(label -> tally.dropped.toDouble)
    metric("weir_jobs_in_flight", "gauge", "Jobs whose handler is running now.")(
      label -> engine.fold(0L)(_.inFlight).toDouble
    )
    val latency = engine.map(_.latency)
    val quantiles = List("0.5", "0.9", "0.99", "0.999").zip(
      latency.fold(List.fill(4)(0.0))(l => List(l.p50, l.p90, l.p99, l.p999).map(seconds))
    )
    out.append(
      "# HELP weir_job_duration_seconds How long handlers took, every job of the run so far.\n" +
        "# TYPE weir_job_duration_seconds summary\n"
    )
    quantiles.foreach((q, v) =>
      out.append(s"""weir_job_duration_seconds{$label,quantile="$q"} ${number(v)}\n""")
    )
    out.append(s"weir_job_duration_seconds_count{$label} ${latency.fold(0L)(_.count)}\n")
    histogram(
      "weir_claim_duration_seconds",
      "How long each claim statement took that claimed jobs.",
      tally.claims
    )
    histogram(
      "weir_ack_duration_seconds",
      "How long each batch of results took to be written back (one statement).",
      tally.acks
    )
    depth.foreach(d =>
      metric("weir_queue_depth", "gauge", "Jobs due and waiting to be claimed.")(
        label -> d.toDouble
      )
    )
    out.toString

  // A bucket's bound as written in its label: 0.0005, 1, 2.5.
  private def plain(v: Double): String =
    java.math.BigDecimal.valueOf(v).stripTrailingZeros.toPlainString

  private def seconds(d: FiniteDuration): Double = d.toNanos / 1e9

  private def number(v: Double): String =
    if v == math.rint(v) && math.abs(v) < 1e15 then v.toLong.toString else v.toString

  // Label values: backslash, double quote and line feed escaped.
  private def escape(s: String): String =
    s.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n")
