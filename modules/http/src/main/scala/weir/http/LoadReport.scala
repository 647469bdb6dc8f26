package weir.http

import scala.concurrent.duration.*

/** The result of a load: counts, latency percentiles, throughput and, when the server's delay is
  * known, the efficiency against Little's-law ceilings.
  *
  * @param planned
  *   requests asked for (`None`: a URL file, or until stopped)
  * @param unfinished
  *   requests launched but cancelled at the end of the grace period
  * @param ceiling
  *   `concurrency / mean delay`, req/s
  * @param finiteIdeal
  *   the zero-overhead makespan for this many requests (see [[LittleLaw.finiteIdeal]])
  * @param warmUp
  *   the client's warm-up before the load, when there was one (not in any other field)
  */
final case class LoadReport(
    target: String,
    concurrency: Int,
    rate: Option[Double],
    planned: Option[Long],
    launched: Long,
    unfinished: Long,
    statuses: Map[Int, Long],
    errors: Map[ErrorClass, Long],
    latency: Latency,
    elapsed: FiniteDuration,
    peakInFlight: Int,
    ending: Ending,
    ceiling: Option[Double],
    finiteIdeal: Option[FiniteDuration],
    warmUp: Option[WarmUp]
):
  def responses: Long = statuses.values.sum
  def errorCount: Long = errors.values.sum
  def finished: Long = responses + errorCount

  /** Requests without a response or with a status of 400 or more. */
  def failures: Long = errorCount + statuses.collect { case (s, n) if s >= 400 || s < 100 => n }.sum

  /** Failures per finished request (0 when none finished). */
  def errorRate: Double = if finished == 0 then 0.0 else failures.toDouble / finished

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
