package weir

import scala.compiletime.{codeOf, error, requireConst}
import scala.concurrent.duration.*

/** A length of time of zero or more (a grace period, a delay, a retention). A `NonNegativeDuration`
  * is a `FiniteDuration` wherever one is expected; making one checks it.
  *
  * `NonNegativeDuration.millis(100)` (or `seconds`, `minutes`, `hours`) takes a literal and is
  * checked at compile time, [[NonNegativeDuration.zero]] is none; [[NonNegativeDuration.from]]
  * checks a value known only at run time.
  */
opaque type NonNegativeDuration <: FiniteDuration = FiniteDuration

object NonNegativeDuration:

  /** No time at all. */
  val zero: NonNegativeDuration = Duration.Zero

  /** `d`; `Left(ConfigError.Negative)` naming `setting` when `d < 0`. */
  def from(
      d: FiniteDuration,
      setting: String = "duration"
  ): Either[ConfigError, NonNegativeDuration] =
    if d >= Duration.Zero then Right(d)
    else Left(ConfigError.Negative(setting, s"-${Durations.show(-d)}"))

  /** A positive duration, which is never negative. */
  def apply(d: PositiveDuration): NonNegativeDuration = d

  /** `n` milliseconds, a literal of zero or more checked at compile time. */
  inline def millis(inline n: Long): NonNegativeDuration = checked(n, MILLISECONDS)

  /** `n` seconds, a literal of zero or more checked at compile time. */
  inline def seconds(inline n: Long): NonNegativeDuration = checked(n, SECONDS)

  /** `n` minutes, a literal of zero or more checked at compile time. */
  inline def minutes(inline n: Long): NonNegativeDuration = checked(n, MINUTES)

  /** `n` hours, a literal of zero or more checked at compile time. */
  inline def hours(inline n: Long): NonNegativeDuration = checked(n, HOURS)

  private inline def checked(inline n: Long, unit: TimeUnit): NonNegativeDuration =
    requireConst(n)
    inline if n >= 0 then FiniteDuration(n, unit)
    else error("a duration must not be negative, got " + codeOf(n))
