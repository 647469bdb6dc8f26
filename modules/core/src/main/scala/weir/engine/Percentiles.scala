package weir.engine

import scala.concurrent.duration.*

/** Latency percentiles of `count` tasks (each within 1.6 % of the exact value, see
  * [[LatencyHistogram]]); all zero when `count` is 0.
  */
final case class Percentiles(
    count: Long,
    p50: FiniteDuration,
    p90: FiniteDuration,
    p99: FiniteDuration,
    p999: FiniteDuration,
    max: FiniteDuration
)

object Percentiles:

  /** No task measured. */
  val empty: Percentiles =
    Percentiles(0, Duration.Zero, Duration.Zero, Duration.Zero, Duration.Zero, Duration.Zero)
