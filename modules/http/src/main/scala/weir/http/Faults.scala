package weir.http

import weir.ConfigError

/** Faults the delay server injects, to test clients: each request independently gets a 500 with
  * probability `errors`, has its connection reset (RST, no response) with probability `drops`, or
  * is never answered with probability `stalls`. The fractions add up to at most 1. Which request
  * gets which fault depends only on the seed and the request's key ([[Faults.of]] for the same seed
  * and key always agrees with the server).
  */
final case class Faults private (errors: Double, drops: Double, stalls: Double):

  /** True when no fault is injected. */
  def none: Boolean = errors == 0 && drops == 0 && stalls == 0

  /** The fault for the request with this key under this seed. */
  def of(seed: Long, key: Long): Faults.Fault =
    if none then Faults.Fault.NoFault
    else
      val u = Keyed.uniform(seed, key, 2)
      if u < errors then Faults.Fault.Error
      else if u < errors + drops then Faults.Fault.Drop
      else if u < errors + drops + stalls then Faults.Fault.Stall
      else Faults.Fault.NoFault

object Faults:

  /** What the server does to one request. */
  enum Fault:
    case NoFault, Error, Drop, Stall

  /** No faults. */
  val default: Faults = new Faults(0, 0, 0)

  /** Faults from three fractions; `Left` says which is out of range, or that they add up to more
    * than 1.
    */
  def of(errors: Double, drops: Double, stalls: Double): Either[ConfigError, Faults] =
    val named = List("errors" -> errors, "drops" -> drops, "stalls" -> stalls)
    named.find((_, f) => !(f >= 0 && f <= 1)) match
      case Some((name, f)) =>
        Left(ConfigError.OutOfRange(s"fraction of $name", f.toString, "[0, 1]"))
      case None if errors + drops + stalls > 1 =>
        Left(ConfigError.Invalid("fault fractions", "add up to more than 1"))
      case None => Right(new Faults(errors, drops, stalls))
