package weir.engine

import weir.ConfigError

/** At most `perSecond` task attempts started per second, on average, with up to `burst` started at
  * once after a quiet spell (a token bucket of `burst` tokens refilled at `perSecond`).
  */
final case class RateLimit private (perSecond: Double, burst: Int):

  /** The time between two tokens, in nanoseconds (at least 1). */
  def intervalNanos: Long = math.max(1L, math.round(1e9 / perSecond))

object RateLimit:

  /** A limit of `perSecond` (positive, finite, at most 10^9) with a `burst` of at least 1; `Left`
    * names the first that is wrong.
    */
  def of(perSecond: Double, burst: Int = 1): Either[ConfigError, RateLimit] =
    if !(perSecond > 0 && perSecond <= 1e9) then
      Left(ConfigError.OutOfRange("rate", perSecond.toString, "(0, 1e9] tasks per second"))
    else if burst < 1 then Left(ConfigError.NotPositive("burst", burst.toString))
    else Right(RateLimit(perSecond, burst))
