package weir

import scala.compiletime.{codeOf, error, requireConst}

/** How many times something is tried in all, the first try included: an `Int` of at least 1 (1 = no
  * retry). An `Attempts` is an `Int` wherever one is expected; making one checks it.
  *
  * `Attempts(3)` takes a literal and is checked at compile time (`Attempts(0)` does not compile);
  * [[Attempts.from]] checks a value known only at run time.
  */
opaque type Attempts <: Int = Int

object Attempts:

  /** One attempt: no retry. */
  val once: Attempts = 1

  /** `n` attempts; `Left(ConfigError.NotPositive)` unless `n >= 1`. */
  def from(n: Int): Either[ConfigError, Attempts] =
    if n >= 1 then Right(n) else Left(ConfigError.NotPositive("attempts", n.toString))

  /** The literal `n`, checked at compile time: it must be a constant and at least 1. */
  inline def apply(inline n: Int): Attempts =
    requireConst(n)
    inline if n >= 1 then n else error("attempts must be at least 1, got " + codeOf(n))
