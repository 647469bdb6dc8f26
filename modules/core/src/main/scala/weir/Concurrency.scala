package weir

import scala.compiletime.{codeOf, error, requireConst}

/** How many things run at once: a positive `Int`. A `Concurrency` is an `Int` wherever one is
  * expected; making one checks it.
  *
  * `Concurrency(64)` takes a literal and is checked at compile time (`Concurrency(0)` does not
  * compile); [[Concurrency.from]] checks a value known only at run time.
  */
opaque type Concurrency <: Int = Int

object Concurrency:

  /** `n` as a concurrency; `Left(ConfigError.NotPositive)` unless `n > 0`. */
  def from(n: Int): Either[ConfigError, Concurrency] =
    if n > 0 then Right(n) else Left(ConfigError.NotPositive("concurrency", n.toString))

  /** The literal `n`, checked at compile time: it must be a constant and positive. */
  inline def apply(inline n: Int): Concurrency =
    requireConst(n)
    inline if n > 0 then n else error("concurrency must be positive, got " + codeOf(n))
