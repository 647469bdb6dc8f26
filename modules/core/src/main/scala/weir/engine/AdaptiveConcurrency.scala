package weir.engine

import weir.{ConfigError, Concurrency}

/** A concurrency limit that moves between `min` and `max` from what the tasks measure, instead of a
  * fixed number (no peer in the seeds has one; Netflix's concurrency-limits is the model).
  *
  * The limit is adjusted once per window of finished attempts: at least [[minWindow]] and at least
  * the limit itself (about one round trip of every permit), measured only after one round at the
  * new limit has let the downstream's queue settle, and only of attempts started at that limit.
  *   - '''errors''': if more than 1 % of the window's attempts failed with an overload error (see
  *     [[Classified.overload]]: timeouts, resets, 5xx...), the limit drops by a quarter
  *     (multiplicative decrease, as TCP and AIMD limiters do);
  *   - '''latency''': the window's mean attempt latency is compared with a baseline, the no-queue
  *     latency (an average of earlier windows without queueing). A rise counts only beyond the
  *     window's noise (2 to 3 standard errors of its mean), so scattered latencies do not look like
  *     a queue. Within `tolerance / 2` of the baseline the limit grows by a tenth (at least 1),
  *     within `tolerance` by a fiftieth (in the slow start, until the first window that does not
  *     grow it, it grows by half instead of a tenth, a gentler TCP slow start); beyond, the
  *     downstream is queueing and the limit is cut in proportion, to where the mean would be
  *     `tolerance / 2` under the baseline, so that the next windows run without a queue and measure
  *     the baseline again.
  *
  * With a downstream that serves `N` requests at once and queues the rest, the latency rises in
  * proportion to the limit beyond `N`, so the limit cycles between a little under and a little over
  * `N`: full throughput, little queueing. Defaults: `initial` 16 (within the bounds), `tolerance`
  * 0.1, `minWindow` 32. The limiter's state is one `Ref`, updated twice per attempt.
  */
final case class AdaptiveConcurrency private (
    min: Concurrency,
    max: Concurrency,
    initial: Concurrency,
    tolerance: Double,
    minWindow: Int
):

  /** Starts from `n` (clamped into the bounds). */
  def withInitial(n: Concurrency): AdaptiveConcurrency = copy(initial = within(n))

  /** The latency rise over the baseline taken for queueing; `Left` unless in (0, 10]. */
  def withTolerance(t: Double): Either[ConfigError, AdaptiveConcurrency] =
    if t > 0 && t <= 10 then Right(copy(tolerance = t))
    else Left(ConfigError.OutOfRange("tolerance", t.toString, "(0, 10]"))

  private def within(n: Concurrency): Concurrency =
    if n < min then min else if n > max then max else n

object AdaptiveConcurrency:

  /** Between `min` and `max`; `Left(ConfigError.Invalid)` when `max < min`. */
  def of(min: Concurrency, max: Concurrency): Either[ConfigError, AdaptiveConcurrency] =
    if max < min then
      Left(ConfigError.Invalid("most concurrency", s"($max) is below the least ($min)"))
    else Right(AdaptiveConcurrency(min, max, min, 0.1, 32).withInitial(Concurrency(16)))
