package weir.http

import org.HdrHistogram.Histogram

/** Latency percentiles in nanoseconds (from a histogram kept in microseconds). */
final case class Latency(
    count: Long,
    mean: Double,
    p50: Long,
    p90: Long,
    p99: Long,
    p999: Long,
    max: Long
)

object Latency:
  val empty: Latency = Latency(0, 0, 0, 0, 0, 0, 0)

  /** Latency by percentile, (percentile, ns), from 0 to 100 with two points per halving of the
    * distance to 100 (50, 75, 87.5, ...), as HdrHistogram iterates: a few dozen points at most.
    */
  def distribution(h: Histogram): List[(Double, Long)] =
    if h.getTotalCount == 0 then Nil
    else
      val points = List.newBuilder[(Double, Long)]
      h.percentiles(2)
        .forEach(v => points += (v.getPercentileLevelIteratedTo -> v.getValueIteratedTo * 1000))
      points.result()

  def of(h: Histogram): Latency =
    if h.getTotalCount == 0 then empty
    else
      def at(p: Double) = h.getValueAtPercentile(p) * 1000
      Latency(
        h.getTotalCount,
        h.getMean * 1000,
        at(50),
        at(90),
        at(99),
        at(99.9),
        h.getMaxValue * 1000
      )
