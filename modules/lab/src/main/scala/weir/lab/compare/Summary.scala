package weir.lab.compare

import scala.concurrent.duration.*

/** Median, minimum and maximum of a non-empty set of durations. The median of an even count is the
  * mean of the middle two.
  */
final case class Summary(
    median: FiniteDuration,
    min: FiniteDuration,
    max: FiniteDuration,
    count: Int
)

object Summary:

  /** The summary of `samples`, or `None` when there are none. */
  def of(samples: Seq[FiniteDuration]): Option[Summary] =
    if samples.isEmpty then None
    else
      val sorted = samples.map(_.toNanos).sorted.toVector
      val n = sorted.size
      val median = if n % 2 == 1 then sorted(n / 2) else (sorted(n / 2 - 1) + sorted(n / 2)) / 2
      Some(Summary(median.nanos, sorted.head.nanos, sorted.last.nanos, n))
