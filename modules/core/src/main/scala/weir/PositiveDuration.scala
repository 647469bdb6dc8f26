package weir

import scala.compiletime.{codeOf, error, requireConst}
import scala.concurrent.duration.*

/** A length of time above zero (a timeout, an interval, a lease). A `PositiveDuration` is a
  * `FiniteDuration` wherever one is expected; making one checks it.
  *
  * `PositiveDuration.seconds(30)` (or `millis`, `minutes`, `hours`) takes a literal and is checked
  * at compile time; [[PositiveDuration.from]] checks a value known only at run time.
  */
opaque type PositiveDuration <: FiniteDuration = FiniteDuration

object PositiveDuration:

  /** `d`; `Left(ConfigError.NotPositive)` naming `setting` unless `d > 0`. */
  def from(d: FiniteDuration, setting: String = "duration"): Either[ConfigError, PositiveDuration] =
    if d > Duration.Zero then Right(d)
    else Left(ConfigError.NotPositive(setting, Durations.show(d)))

  /** `n` milliseconds, a positive literal checked at compile time. */
  inline def millis(inline n: Long): PositiveDuration = checked(n, MILLISECONDS)

  /** `n` seconds, a positive literal checked at compile time. */
  inline def seconds(inline n: Long): PositiveDuration = checked(n, SECONDS)

  /** `n` minutes, a positive literal checked at compile time. */
  inline def minutes(inline n: Long): PositiveDuration = checked(n, MINUTES)

  /** `n` hours, a positive literal checked at compile time. */
  inline def hours(inline n: Long): PositiveDuration = checked(n, HOURS)

  private inline def checked(inline n: Long, unit: TimeUnit): PositiveDuration =
    requireConst(n)
    inline if n > 0 then FiniteDuration(n, unit)
    else error("a positive duration must be above zero, got " + codeOf(n))
