package weir.http
import weir.{ConfigError, Durations}

import scala.concurrent.duration.*

/** How long the delay server waits before answering a request. */
enum Delay:

  /** Uniform between `min` and `max` (continuous), the seed's `uniform(0, maxDelay)`. */
  case Uniform(min: FiniteDuration, max: FiniteDuration)

  /** Always `value`. */
  case Fixed(value: FiniteDuration)

  /** Exponential with the given mean (memoryless arrivals; a long tail). */
  case Exponential(average: FiniteDuration)

  /** The distribution's mean. */
  def mean: FiniteDuration = this match
    case Uniform(lo, hi) => ((lo.toNanos + hi.toNanos) / 2).nanos
    case Fixed(v)        => v
    case Exponential(m)  => m

  /** The delay in nanoseconds for a uniform draw `u` in `[0, 1)`. */
  def nanos(u: Double): Long = this match
    case Uniform(lo, hi) => lo.toNanos + (u * (hi.toNanos - lo.toNanos)).toLong
    case Fixed(v)        => v.toNanos
    case Exponential(m)  => (-math.log1p(-u) * m.toNanos).toLong

  /** The delay of the request with this key under this seed (see [[Keyed]]). */
  def nanosFor(seed: Long, key: Long): Long = nanos(Keyed.uniform(seed, key, 1))

  /** The form [[Delay.parse]] reads back. */
  def label: String = this match
    case Uniform(lo, hi) => s"uniform:${lo.toMillis}ms..${hi.toMillis}ms"
    case Fixed(v)        => s"fixed:${v.toMillis}ms"
    case Exponential(m)  => s"exp:${m.toMillis}ms"

object Delay:

  /** The seed's server: uniform 0..3 s, mean 1.5 s. */
  val default: Delay = Uniform(Duration.Zero, 3.seconds)

  val syntax: String =
    "MIN..MAX | uniform:MIN..MAX | fixed:D | D | exp:MEAN (e.g. 0..3s, fixed:100ms, exp:1.5s)"

  /** Parses `0..3s`, `uniform:0..200ms`, `fixed:100ms`, `100ms`, `exp:1.5s`. A unit written only
    * after MAX applies to MIN too (`0..3s` is 0 s to 3 s).
    */
  def parse(text: String): Either[ConfigError, Delay] =
    val t = text.trim.toLowerCase
    def range(body: String): Either[String, Delay] = body.split("\\.\\.", -1) match
      case Array(lo, hi) =>
        val unit = hi.trim.dropWhile(c => c.isDigit || c == '.')
        val loText = if lo.trim.forall(c => c.isDigit || c == '.') then lo.trim + unit else lo
        for
          min <- Durations.parse(loText)
          max <- Durations.parse(hi)
          _ <- Either.cond(min <= max, (), s"'$text': MIN must not exceed MAX")
        yield Uniform(min, max)
      case _ => Left(s"'$text' is not a delay; write $syntax")
    val parsed =
      if t.startsWith("uniform:") then range(t.stripPrefix("uniform:"))
      else if t.contains("..") then range(t)
      else if t.startsWith("fixed:") then Durations.parse(t.stripPrefix("fixed:")).map(Fixed(_))
      else if t.startsWith("exp:") then Durations.parse(t.stripPrefix("exp:")).map(Exponential(_))
      else Durations.parse(t).map(Fixed(_))
    parsed.left.map(msg =>
      ConfigError.Unreadable(
        "delay",
        text,
        if msg.contains(syntax) then msg else s"$msg; a delay is $syntax"
      )
    )
