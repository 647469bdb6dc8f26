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
