package weir.cli.report

/** Maps data values to pixels along one axis, linearly or on a log scale, and proposes round tick
  * values. Pure.
  *
  * @param min
  *   the data value at `from` (for a log scale, positive)
  * @param max
  *   the data value at `to`, above `min`
  * @param from
  *   the pixel of `min` (may be greater than `to`: y axes grow upwards)
  * @param to
  *   the pixel of `max`
  */
final case class Scale(min: Double, max: Double, from: Double, to: Double, log: Boolean):

  private def t(v: Double): Double =
    if log then math.log10(math.max(v, Double.MinPositiveValue)) else v

  /** The pixel of `v` (values outside `[min, max]` land outside `[from, to]`). */
  def apply(v: Double): Double =
    val span = t(max) - t(min)
    if span == 0 then from else from + (t(v) - t(min)) / span * (to - from)

  /** Round values within `[min, max]` for about `count` ticks: 1, 2 or 5 times a power of ten apart
    * on a linear scale; powers of ten (with 2 and 5 between them when the range is short) on a log
    * scale.
    */
  def ticks(count: Int = 5): List[Double] =
    if log then logTicks
    else
      val step = Scale.niceStep((max - min) / math.max(1, count))
      if step <= 0 || step.isNaN then List(min)
      else
        val first = math.ceil(min / step - 1e-9) * step
        Iterator.iterate(first)(_ + step).takeWhile(_ <= max + step * 1e-9).map(Scale.clean).toList

  private def logTicks: List[Double] =
    // A log scale's bounds are positive and finite (see the constructors); guard anyway, so that a
    // bad bound gives no ticks rather than a loop over every exponent an Int holds.
    if !(min > 0 && max > min && max < Double.PositiveInfinity) then Nil
    else
      val lo = math.floor(math.log10(min)).toInt
      val hi = math.ceil(math.log10(max)).toInt
      powers(lo, hi)

  private def powers(lo: Int, hi: Int): List[Double] =
    val steps = if hi - lo <= 2 then List(1.0, 2.0, 5.0) else List(1.0)
    (for
      e <- lo to hi
      m <- steps
      v = m * math.pow(10, e)
      if v >= min * (1 - 1e-9) && v <= max * (1 + 1e-9)
    yield Scale.clean(v)).toList

object Scale:

  /** A linear scale from `min` to `max` (made non-empty: `max` becomes `min + 1` when not above).
    */
  def linear(min: Double, max: Double, from: Double, to: Double): Scale =
    Scale(min, if max > min then max else min + 1, from, to, log = false)

  /** A log scale; `min` and `max` are widened to the powers of ten around them. */
  def log(min: Double, max: Double, from: Double, to: Double): Scale =
    val lo = math.pow(10, math.floor(math.log10(math.max(min, 1e-12))))
    val hi = math.pow(10, math.ceil(math.log10(math.max(max, lo * 10))))
    Scale(lo, if hi > lo then hi else lo * 10, from, to, log = true)

  /** The round step (1, 2 or 5 times a power of ten) at or above `raw`. */
  def niceStep(raw: Double): Double =
    if raw <= 0 || raw.isNaN || raw.isInfinite then 0
    else
      val power = math.pow(10, math.floor(math.log10(raw)))
      val f = raw / power
      val m = if f <= 1 then 1 else if f <= 2 then 2 else if f <= 5 then 5 else 10
      m * power

  /** The round value at or above `v` that [[Scale.linear]] makes a good top for: 1, 2, 2.5, 5 or 10
    * times a power of ten.
    */
  def niceMax(v: Double): Double =
    if v <= 0 || v.isNaN || v.isInfinite then 1
    else
      val power = math.pow(10, math.floor(math.log10(v)))
      val f = v / power
      val m = List(1.0, 1.2, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0).find(_ >= f - 1e-9).get
      clean(m * power)

  // Removes floating-point dust (0.30000000000000004 -> 0.3).
  private def clean(v: Double): Double = BigDecimal(v).round(new java.math.MathContext(12)).toDouble
