package weir.http

import scala.concurrent.duration.*

/** The result of a load: counts, latency percentiles, throughput and, when the server's delay is
  * known, the efficiency against Little's-law ceilings.
  *
  * Every request counted here was started (`launched`); it then got a response (`statuses`, any
  * status, after its last attempt), failed for good without one (`errors` by class, bad lines of a
  * URL file included), or was cut off at the end of the grace period (`unfinished`). So `launched
  * \= responses + errorCount + unfinished`.
  *
  * @param planned
  *   requests asked for (`None`: a URL file, or until stopped)
  * @param concurrency
  *   the limit at the end: the fixed one, or where the adaptive one ended
  * @param adaptive
  *   the adaptive limit's bounds, when `--concurrency auto`
  * @param retries
  *   attempts beyond the first, over all requests
  * @param samples
  *   one error message for each class that occurred
  * @param badLines
  *   the first lines of a URL file that were not URLs (all are counted in `errors`)
  * @param distribution
  *   latency by percentile (percentile, ns), for a percentile plot
  * @param ceiling
  *   `concurrency / mean delay`, req/s
  * @param finiteIdeal
  *   the zero-overhead makespan for this many requests (see [[LittleLaw.finiteIdeal]])
  * @param warmUp
  *   the client's warm-up before the load, when there was one (not in any other field)
  * @param timeline
  *   the load interval by interval (see [[LoadTimeline]]): for charts over time
  * @param tls
  *   how servers' certificates were checked ([[ClientTls.describe]]), for a load over TLS
  * @param insecure
  *   true when certificates were not verified at all (`--insecure`)
  * @param protocols
  *   the connections the client opened, by protocol (`h2`, `h2c`), for an HTTP/2 load; empty for
  *   HTTP/1.1
  * @param sessions
  *   the TLS engine and the client's handshakes (the versions negotiated, how many resumed), for a
  *   load over TLS (HTTP/1.1 or HTTP/2)
  * @param clientCpu
  *   the CPU (user + system) the whole process used from the load's start to its end: the client's
  *   cost, without the JVM's start or the warm-up (and with whatever else the process ran then)
  */
final case class LoadReport(
    target: String,
    concurrency: Int,
    adaptive: Option[(Int, Int)],
    rate: Option[Double],
    planned: Option[Long],
    launched: Long,
    unfinished: Long,
    retries: Long,
    statuses: Map[Int, Long],
    errors: Map[ErrorClass, Long],
    samples: Map[ErrorClass, String],
    badLines: List[RequestFailed.BadLine],
    latency: Latency,
    distribution: List[(Double, Long)],
    elapsed: FiniteDuration,
    peakInFlight: Int,
    ending: Ending,
    ceiling: Option[Double],
    finiteIdeal: Option[FiniteDuration],
    warmUp: Option[WarmUp],
    timeline: Vector[LoadTimeline.Interval] = Vector.empty,
    tls: Option[String] = None,
    insecure: Boolean = false,
    protocols: Map[String, Long] = Map.empty,
    sessions: Option[TlsSessions] = None,
    clientCpu: Option[FiniteDuration] = None
):
  def responses: Long = statuses.values.sum
  def errorCount: Long = errors.values.sum

  /** The client's CPU per finished request, in milliseconds ([[clientCpu]] over [[finished]]). */
  def cpuPerRequestMillis: Option[Double] =
    clientCpu.filter(_ => finished > 0).map(_.toNanos / 1e6 / finished)
  def finished: Long = responses + errorCount

  /** Responses with a status of 400 or more (or not HTTP at all). */
  def errorResponses: Long = statuses.collect { case (s, n) if s >= 400 || s < 100 => n }.sum

  /** Requests that failed: no response, or a status of 400 or more. */
  def failures: Long = errorCount + errorResponses

  /** Failures per finished request (0 when none finished). */
  def errorRate: Double = if finished == 0 then 0.0 else failures.toDouble / finished

  /** The protocol line of an HTTP/2 load: `h2 on 4 connections`, or `h2 on 3, h2c on 1`. */
  def protocolLine: Option[String] =
    Option.when(protocols.nonEmpty) {
      protocols.toList.sorted match
        case List((p, n)) => s"$p on $n connection${if n == 1 then "" else "s"}"
        case many         => many.map((p, n) => s"$p on $n").mkString(", ")
    }

  /** Finished requests per second. */
  def throughput: Double = if elapsed.toNanos <= 0 then 0.0 else finished * 1e9 / elapsed.toNanos

  /** Throughput over `concurrency / mean delay`. */
  def efficiency: Option[Double] = ceiling.map(throughput / _)

  /** The ideal makespan over the real one: 1.0 means no client overhead at all. */
  def finiteEfficiency: Option[Double] =
    finiteIdeal.map(ideal =>
      if elapsed.toNanos <= 0 then 0.0 else ideal.toNanos.toDouble / elapsed.toNanos
    )

  /** The finite-run ideal as a rate, req/s. */
  def finiteIdealRate: Option[Double] =
    finiteIdeal.map(ideal =>
      if ideal.toNanos <= 0 then Double.PositiveInfinity else finished * 1e9 / ideal.toNanos
    )

  /** What the load amounts to against `maxErrorRate` (the one place the pass/fail rule lives). */
  def verdict(maxErrorRate: Double): Verdict =
    if ending == Ending.Interrupted then Verdict.Interrupted
    else if launched == 0 then Verdict.NothingSent
    else if errorRate > maxErrorRate then Verdict.TooManyErrors(errorRate, maxErrorRate)
    else Verdict.Ok

/** Whether a load met its goal. */
enum Verdict:
  /** The error rate stayed within the maximum. */
  case Ok

  /** More requests failed than the maximum allows. */
  case TooManyErrors(rate: Double, max: Double)

  /** Stopped from outside (Ctrl-C) before its end: no verdict on a partial run. */
  case Interrupted

  /** Nothing was requested (an empty URL file, or every line a comment). */
  case NothingSent

  def describe: String = this match
    case Ok                       => "ok"
    case TooManyErrors(rate, max) => f"FAILED: error rate $rate%.4f > --max-error-rate $max"
    case Interrupted              => "interrupted: a partial run, no verdict"
    case NothingSent              => "FAILED: nothing was requested"
