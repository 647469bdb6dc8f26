package weir.cli.load

/** What `weir load`'s HTML report draws ([[LoadHtml]]): filled from the run's
  * [[weir.http.LoadReport]].
  *
  * @param intervals
  *   the load's figures interval by interval, in time order (one a second suits a run of minutes;
  *   to keep a long run in constant memory, widen the interval as it goes, adding the interval
  *   histograms, so that there are never more than a few hundred)
  * @param distribution
  *   the latency distribution of the whole run: latency at each percentile, ascending (from
  *   HdrHistogram's percentile iteration, for example)
  * @param concurrency
  *   the concurrency bound, drawn on the in-flight chart
  * @param ceiling
  *   Little's-law ceiling, req/s (`concurrency / mean delay`), when the server's delay is known
  * @param finiteIdeal
  *   the finite-N ideal as a rate, req/s, when the server's delay distribution is known
  */
final case class LoadCharts(
    intervals: Vector[LoadCharts.Interval],
    distribution: Vector[LoadCharts.Quantile],
    concurrency: Int,
    ceiling: Option[Double],
    finiteIdeal: Option[Double]
):
  /** Every error class that occurs in some interval, in order of first appearance. */
  def errorClasses: List[String] =
    intervals.flatMap(_.errors.filter(_._2 > 0).keys).distinct.toList

object LoadCharts:

  /** One interval of a load.
    *
    * @param start
    *   seconds from the load's start (after the client's warm-up) to the interval's start
    * @param length
    *   the interval's length, seconds (the last one may be shorter)
    * @param finished
    *   requests that ended in the interval, with a response or an error
    * @param inFlight
    *   requests in flight at the interval's end
    * @param p50Ms
    *   median latency of the requests answered in the interval, ms (NaN when none was)
    * @param p99Ms
    *   99th percentile of the same, ms
    * @param maxMs
    *   the longest of the same, ms
    * @param errors
    *   requests that failed in the interval, by class (an error class, or status>=400)
    */
  final case class Interval(
      start: Double,
      length: Double,
      finished: Long,
      inFlight: Long,
      p50Ms: Double,
      p99Ms: Double,
      maxMs: Double,
      errors: Map[String, Long]
  ):
    /** Requests finished per second in the interval. */
    def throughput: Double = if length > 0 then finished / length else 0.0

    /** The interval's end, seconds from the load's start. */
    def end: Double = start + length

  /** The latency at one percentile (0 to 100, e.g. 99.9) of the whole run, ms. */
  final case class Quantile(percentile: Double, latencyMs: Double)
