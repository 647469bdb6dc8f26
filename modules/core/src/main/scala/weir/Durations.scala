package weir

import scala.concurrent.duration.*

/** Durations as people write them on a command line: `250ms`, `1.5s`, `2m`, `1h`, `800us`, `500ns`,
  * or a bare number of milliseconds; and back, short. The one parser every weir command uses.
  */
private[weir] object Durations:

  /** Parses one duration; `Left` says what was expected. */
  def parse(text: String): Either[String, FiniteDuration] =
    val trimmed = text.trim.toLowerCase
    val (number, unit) = trimmed.span(c => c.isDigit || c == '.')
    val nanosPer: Option[Double] = unit.trim match
      case "" | "ms"   => Some(1e6)
      case "s"         => Some(1e9)
      case "m" | "min" => Some(60e9)
      case "h"         => Some(3600e9)
      case "us" | "µs" => Some(1e3)
      case "ns"        => Some(1.0)
      case _           => None
    (number.toDoubleOption, nanosPer) match
      case (Some(value), Some(f)) if value >= 0 && value * f < Long.MaxValue.toDouble =>
        Right((value * f).round.nanos)
      case _ =>
        Left(s"'$text' is not a duration; write e.g. 250ms, 1.5s, 2m, 1h (a bare number is ms)")

  /** A short human form: `850 µs`, `12.3 ms`, `1.50 s`. */
  def show(d: FiniteDuration): String = showNanos(d.toNanos.toDouble)

  /** [[show]] for a number of nanoseconds. */
  def showNanos(nanos: Double): String =
    if nanos == 0 then "0"
    else if nanos < 1e3 then f"$nanos%.0f ns"
    else if nanos < 1e6 then f"${nanos / 1e3}%.0f µs"
    else if nanos < 1e9 then f"${nanos / 1e6}%.1f ms"
    else f"${nanos / 1e9}%.2f s"
