package weir.launch

/** How a [[Launcher]] launches: at most `concurrency` effects in flight, and optionally an arrival
  * `rate` (effects per second) for an open model.
  *
  * Without a rate the launch is a closed model: a new effect starts as soon as one finishes. With a
  * rate, effect `i` is due at `start + i / rate`; it starts then, or later if all `concurrency`
  * slots are busy, and its [[Slot.scheduled]] stays the due time so that latency measured from it
  * includes the wait (coordinated omission is not hidden).
  *
  * Defaults: concurrency 100, no rate.
  */
final case class LaunchSettings private (concurrency: Int, rate: Option[Double]):

  /** The same settings with at most `n` effects in flight; `n` must be positive. */
  def withConcurrency(n: Int): LaunchSettings =
    LaunchSettings.of(n, rate).fold(msg => throw new IllegalArgumentException(msg), identity)

  /** The same settings with a constant arrival rate of `perSecond` (positive, finite). */
  def withRate(perSecond: Double): LaunchSettings =
    LaunchSettings
      .of(concurrency, Some(perSecond))
      .fold(msg => throw new IllegalArgumentException(msg), identity)

  /** The same settings as a closed model: no arrival rate. */
  def withoutRate: LaunchSettings = copy(rate = None)

  /** The nanoseconds between two due times, when a rate is set. */
  private[launch] def intervalNanos: Option[Double] = rate.map(1e9 / _)

object LaunchSettings:

  /** 100 effects in flight, no rate. */
  val default: LaunchSettings = new LaunchSettings(100, None)

  /** Settings from a concurrency and an optional rate; `Left` says which one is wrong. */
  def of(concurrency: Int, rate: Option[Double] = None): Either[String, LaunchSettings] =
    if concurrency <= 0 then Left(s"concurrency must be a positive integer, got $concurrency")
    else
      rate match
        case Some(r) if !(r > 0 && r.isFinite) =>
          Left(s"rate must be a positive number per second, got $r")
        case _ => Right(new LaunchSettings(concurrency, rate))
