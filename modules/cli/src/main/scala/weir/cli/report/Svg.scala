package weir.cli.report

/** The pieces charts are drawn with: numbers printed for SVG, a colour palette, and elements as
  * strings (every text escaped). Charts are inline `<svg>` without a namespace attribute: HTML
  * places them in SVG's namespace itself, and the page stays free of any address.
  */
object Svg:

  /** Colours that stay distinct for most kinds of colour blindness (Okabe and Ito), darkest first;
    * yellow is left out (too light on white).
    */
  val palette: Vector[String] =
    Vector("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000")

  /** The `i`-th palette colour, cycling. */
  def colour(i: Int): String = palette(Math.floorMod(i, palette.size))

  /** A coordinate or length with at most one decimal. */
  def n(v: Double): String =
    if v.isNaN || v.isInfinite then "0"
    else
      val r = math.round(v * 10) / 10.0
      if r == r.toLong then r.toLong.toString else r.toString

  /** A chart's root element: `width` by `height` user units, scaled to its box by the page. */
  def root(width: Int, height: Int, label: String, body: String): String =
    s"""<svg viewBox="0 0 $width $height" width="$width" height="$height" role="img" aria-label="${Html
        .escape(label)}">
       |$body
       |</svg>""".stripMargin

  def line(x1: Double, y1: Double, x2: Double, y2: Double, attrs: String): String =
    s"""<line x1="${n(x1)}" y1="${n(y1)}" x2="${n(x2)}" y2="${n(y2)}" $attrs/>"""

  def rect(x: Double, y: Double, w: Double, h: Double, attrs: String): String =
    s"""<rect x="${n(x)}" y="${n(y)}" width="${n(math.max(0, w))}" height="${n(
        math.max(0, h)
      )}" $attrs/>"""

  def circle(
      x: Double,
      y: Double,
      r: Double,
      attrs: String,
      tooltip: Option[String] = None
  ): String =
    val t = tooltip.fold("")(tip => s"<title>${Html.escape(tip)}</title>")
    if t.isEmpty then s"""<circle cx="${n(x)}" cy="${n(y)}" r="${n(r)}" $attrs/>"""
    else s"""<circle cx="${n(x)}" cy="${n(y)}" r="${n(r)}" $attrs>$t</circle>"""

  /** A path through `points` (an "M x y L x y ..." path); empty when there are none. */
  def polyline(points: Seq[(Double, Double)], attrs: String): String =
    if points.isEmpty then ""
    else
      val d = points
        .map((x, y) => s"${n(x)} ${n(y)}")
        .mkString("M", " L", "")
      s"""<path d="$d" fill="none" $attrs/>"""

  /** A closed filled shape: `points`, then down to `baseline` and back to the start. */
  def area(points: Seq[(Double, Double)], baseline: Double, attrs: String): String =
    if points.isEmpty then ""
    else
      val d = ((points.head._1, baseline) +: points :+ (points.last._1, baseline))
        .map((x, y) => s"${n(x)} ${n(y)}")
        .mkString("M", " L", " Z")
      s"""<path d="$d" $attrs/>"""

  /** Text at `(x, y)`; `anchor` is start, middle or end. */
  def text(
      x: Double,
      y: Double,
      content: String,
      anchor: String = "start",
      cls: String = ""
  ): String =
    val c = if cls.isEmpty then "" else s""" class="$cls""""
    s"""<text x="${n(x)}" y="${n(y)}" text-anchor="$anchor"$c>${Html.escape(content)}</text>"""

  /** A group with a tooltip (`<title>`, shown on hover by browsers, read by screen readers). */
  def titled(tooltip: String, body: String): String =
    s"<g><title>${Html.escape(tooltip)}</title>$body</g>"

  /** A stroke's dash pattern for a line style. */
  def dash(style: LineChart.Style): String = style match
    case LineChart.Style.Dashed => """ stroke-dasharray="6 4""""
    case LineChart.Style.Dotted => """ stroke-dasharray="2 3""""
    case _                      => ""
