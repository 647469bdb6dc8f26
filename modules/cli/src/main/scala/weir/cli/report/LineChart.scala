package weir.cli.report

/** Lines (or filled areas) of points over a numeric x axis, linear or log on either axis, with
  * labelled horizontal reference lines: time series, time per size, percentile distributions.
  *
  * A point whose y is NaN breaks its line. Axes start at 0 on a linear scale unless given a
  * minimum, and end at a round value above the data and the reference lines. Pure.
  *
  * @param label
  *   what the chart shows, for screen readers
  * @param references
  *   horizontal lines across the plot, each labelled at its right end
  */
final case class LineChart(
    label: String,
    x: LineChart.Axis,
    y: LineChart.Axis,
    series: List[LineChart.Series],
    references: List[LineChart.Reference] = Nil,
    width: Int = 720,
    height: Int = 260
):
  import LineChart.*

  private val left = 58.0
  private val right = width - 16.0
  private val top = 26.0
  private val bottom = height - 38.0

  private def finite(v: Double) = !v.isNaN && !v.isInfinite
  private val xs = series.flatMap(_.points.map(_._1)).filter(finite)
  private val ys = series.flatMap(_.points.map(_._2)).filter(finite) ++ references.map(_.value)

  private val xScale: Scale =
    if x.log then
      // A log x axis spans the data exactly (sizes 10..500 need no room up to 1000).
      val positive = xs.filter(_ > 0)
      val lo = x.min.filter(_ > 0).getOrElse(positive.minOption.getOrElse(1.0))
      val hi = x.max.getOrElse(positive.maxOption.getOrElse(10.0))
      Scale(lo, if hi > lo then hi else lo * 10, left, right, log = true)
    else
      val lo = x.min.getOrElse(if xs.isEmpty then 0.0 else xs.min)
      val hi = x.max.getOrElse(if xs.isEmpty then 1.0 else xs.max)
      Scale.linear(lo, hi, left, right)

  private val yScale: Scale =
    if y.log then
      val positive = ys.filter(_ > 0)
      Scale.log(
        y.min.getOrElse(if positive.isEmpty then 1.0 else positive.min),
        y.max.getOrElse(if positive.isEmpty then 10.0 else positive.max),
        bottom,
        top
      )
    else
      val lo = y.min.getOrElse(0.0)
      // Headroom above the highest value, so that a line at the top is not lost in the frame.
      val high = y.max.getOrElse(Scale.niceMax(if ys.isEmpty then 1.0 else ys.max * 1.05))
      Scale.linear(lo, high, bottom, top)

  /** The chart's SVG. */
  def svg: String =
    val xTicks = x.ticks.getOrElse(xScale.ticks(8).map(v => v -> x.format(v)))
    val yTicks = y.ticks.getOrElse(yScale.ticks(5).map(v => v -> y.format(v)))
    val grid = yTicks.map { (v, text) =>
      val py = yScale(v)
      Svg.line(left, py, right, py, """class="grid"""") +
        Svg.text(left - 6, py + 4, text, "end", "muted")
    } ++ xTicks.map { (v, text) =>
      val px = xScale(v)
      Svg.line(px, bottom, px, bottom + 4, """class="axis"""") +
        Svg.text(px, bottom + 17, text, "middle", "muted")
    }
    val axes = List(
      Svg.line(left, bottom, right, bottom, """class="axis""""),
      Svg.line(left, top, left, bottom, """class="axis""""),
      Svg.text(left - 6, top - 10, y.label, "start"),
      Svg.text((left + right) / 2, height - 4.0, x.label, "middle")
    )
    val lines = series.flatMap(drawSeries)
    // Labels sit above their line, or below it when the line above is too close for both.
    val placed = references.sortBy(r => yScale(r.value)).foldLeft(List.empty[(Reference, Double)]) {
      (done, r) =>
        val py = yScale(r.value)
        val labelY = done.headOption match
          case Some((_, above)) if py - 4 - above < 14 => py + 14
          case _                                       => py - 4
        (r, labelY) :: done
    }
    val refs = placed.reverse.map { (r, labelY) =>
      val py = yScale(r.value)
      Svg.titled(
        s"${r.name}: ${exact(r.value)}",
        Svg.line(
          left,
          py,
          right,
          py,
          s"""stroke="${r.colour}" stroke-width="1.5" stroke-dasharray="8 4""""
        ) +
          Svg.text(right - 4, labelY, r.name, "end")
      )
    }
    Svg.root(width, height, label, (grid ++ axes ++ lines ++ refs).mkString("\n"))

  private def drawSeries(s: Series): List[String] =
    val runs = s.points
      .foldLeft(List(Vector.empty[(Double, Double)])) { (acc, p) =>
        if finite(p._1) && finite(p._2) && (!y.log || p._2 > 0) && (!x.log || p._1 > 0) then
          (acc.head :+ (xScale(p._1) -> yScale(p._2))) :: acc.tail
        else if acc.head.isEmpty then acc
        else Vector.empty :: acc
      }
      .reverse
      .filter(_.nonEmpty)
    val stroke = s"""stroke="${s.colour}" stroke-width="${
        if s.style == Style.Area then 1 else 2
      }"${Svg
        .dash(s.style)}"""
    val paths = runs.map { run =>
      if s.style == Style.Area then
        Svg.area(
          run,
          yScale(math.max(yScale.min, 0.0)),
          s"""fill="${s.colour}" fill-opacity="0.25""""
        ) +
          Svg.polyline(run, stroke)
      else Svg.polyline(run, stroke)
    }
    val marks =
      if !s.markers then Nil
      else
        s.points.toList.collect {
          case (px, py) if finite(px) && finite(py) && (!y.log || py > 0) && (!x.log || px > 0) =>
            Svg.circle(
              xScale(px),
              yScale(py),
              3,
              s"""fill="${s.colour}"""",
              Some(s"${s.name}: ${exact(px)} ${x.label}, ${exact(py)}")
            )
        }
    paths ++ marks

  /** The legend: one entry per series, then per reference line. */
  def legend: List[Figure.Key] =
    series.map { s =>
      val mark = if s.style == Style.Area then Figure.Mark.Area else Figure.Mark.Line(s.style)
      Figure.Key(s.name, s.colour, mark)
    } ++ references.map(r => Figure.Key(r.name, r.colour, Figure.Mark.Line(Style.Dashed)))

  /** This chart as a [[Figure]] with its legend. */
  def figure(caption: String, note: String = ""): Figure = Figure(caption, svg, legend, note)

object LineChart:

  /** How a series is drawn. */
  enum Style:
    case Line, Dashed, Dotted, Area

  /** One axis.
    *
    * @param min
    *   the axis's start (default: 0 on a linear y axis, the data's least value otherwise)
    * @param max
    *   the axis's end (default: a round value above the data)
    * @param ticks
    *   tick positions and labels, instead of round values
    */
  final case class Axis(
      label: String,
      log: Boolean = false,
      min: Option[Double] = None,
      max: Option[Double] = None,
      format: Double => String = compact,
      ticks: Option[List[(Double, String)]] = None
  )

  /** A named line of `(x, y)` points, in x order. */
  final case class Series(
      name: String,
      points: Vector[(Double, Double)],
      colour: String,
      style: Style = Style.Line,
      markers: Boolean = false
  )

  /** A horizontal line at `value`, e.g. a ceiling or an ideal. */
  final case class Reference(name: String, value: Double, colour: String)

  /** A measured value as a label or tooltip shows it: whole from 100 up (`1002`, `48359`), one
    * decimal from 10, two below (`2.26`).
    */
  def exact(v: Double): String =
    val a = math.abs(v)
    val digits = if a >= 100 then 0 else if a >= 10 then 1 else 2
    BigDecimal(v)
      .setScale(digits, BigDecimal.RoundingMode.HALF_UP)
      .bigDecimal
      .stripTrailingZeros
      .toPlainString

  /** A number in few characters, for axis ticks: `950`, `1.2k`, `48k`, `1.5M`, `0.25`. */
  def compact(v: Double): String =
    val a = math.abs(v)
    def trim(x: Double, digits: Int) =
      BigDecimal(x)
        .setScale(digits, BigDecimal.RoundingMode.HALF_UP)
        .bigDecimal
        .stripTrailingZeros
        .toPlainString
    if a >= 1e6 then trim(v / 1e6, if a >= 1e7 then 0 else 1) + "M"
    else if a >= 1e4 then trim(v / 1e3, 0) + "k"
    else if a >= 1e3 then trim(v / 1e3, 1) + "k"
    else if a >= 10 || a == 0 then trim(v, 0)
    else if a >= 1 then trim(v, 1)
    else trim(v, 3)
