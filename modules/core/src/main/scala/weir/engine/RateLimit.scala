package weir.engine

/** At most `perSecond` task attempts started per second, on average, with up to `burst` started at
  * once after a quiet spell (a token bucket of `burst` tokens refilled at `perSecond`).
  */
final case class RateLimit private (perSecond: Double, burst: Int):

  /** The time between two tokens, in nanoseconds (at least 1). */
  def intervalNanos: Long = math.max(1L, math.round(1e9 / perSecond))

object RateLimit:

  /** A limit of `perSecond` (positive, finite, at most 10^9) with a `burst` of at least 1; `Left`
    * says which is wrong.
    */
  def of(perSecond: Double, burst: Int = 1): Either[String, RateLimit] =
    if !(perSecond > 0 && perSecond <= 1e9) then
      Left(s"the rate must be a number of tasks per second in (0, 1e9], got $perSecond")
    else if burst < 1 then Left(s"the burst must be at least 1, got $burst")
    else Right(RateLimit(perSecond, burst))
