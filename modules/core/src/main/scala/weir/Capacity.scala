package weir

import scala.compiletime.{codeOf, error, requireConst}

/** How many things fit (a queue's places, a batch's jobs, a chunk's bytes): a positive `Int`. A
  * `Capacity` is an `Int` wherever one is expected; making one checks it.
  *
  * `Capacity(200)` takes a literal and is checked at compile time (`Capacity(0)` does not compile);
  * [[Capacity.from]] checks a value known only at run time.
  */
opaque type Capacity <: Int = Int

object Capacity:

  /** `n` as a capacity; `Left(ConfigError.NotPositive)` naming `setting` unless `n > 0`. */
  def from(n: Int, setting: String = "capacity"): Either[ConfigError, Capacity] =
    if n > 0 then Right(n) else Left(ConfigError.NotPositive(setting, n.toString))

  /** The literal `n`, checked at compile time: it must be a constant and positive. */
  inline def apply(inline n: Int): Capacity =
    requireConst(n)
    inline if n > 0 then n else error("a capacity must be positive, got " + codeOf(n))

  /** Room for as many as `n` run at once (a buffer as deep as a concurrency): always positive. */
  def of(n: Concurrency): Capacity = n
