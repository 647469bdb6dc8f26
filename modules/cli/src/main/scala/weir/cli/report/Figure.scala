package weir.cli.report

/** A chart as the page shows it: a caption, the chart's SVG, a legend under it (HTML, so it wraps
  * on a phone and stays legible) and a note.
  *
  * @param caption
  *   the figure's title
  * @param svg
  *   the chart, from [[LineChart]], [[WhiskerChart]] or [[LaneChart]]
  * @param legend
  *   one entry per mark the chart uses
  * @param note
  *   plain text under the legend: how to read the chart, what was measured
  */
final case class Figure(caption: String, svg: String, legend: List[Figure.Key], note: String = ""):

  /** The `<figure>` element. */
  def html: String =
    val keys =
      if legend.isEmpty then ""
      else legend.map(_.html).mkString("<ul class=\"legend\">", "", "</ul>")
    val p = if note.isEmpty then "" else s"""<p class="note">${Html.escape(note)}</p>"""
    s"""<figure>
       |<figcaption>${Html.escape(caption)}</figcaption>
       |<div class="chart">$svg</div>
       |$keys$p
       |</figure>""".stripMargin

object Figure:

  /** What a legend entry's swatch shows. */
  enum Mark:
    case Line(style: LineChart.Style)
    case Area
    case Dot
    case Diamond
    case Bar
    case Whisker
    case Tick

  /** One legend entry: a swatch in `colour` and a label. */
  final case class Key(label: String, colour: String, mark: Mark):
    def html: String =
      val c = colour
      val swatch = mark match
        case Mark.Line(style) =>
          Svg.line(1, 6, 21, 6, s"""stroke="$c" stroke-width="2"${Svg.dash(style)}""")
        case Mark.Area    => Svg.rect(1, 2, 20, 8, s"""fill="$c" fill-opacity="0.35"""")
        case Mark.Dot     => Svg.circle(11, 6, 4, s"""fill="$c"""")
        case Mark.Diamond => s"""<path d="M11 1 L16 6 L11 11 L6 6 Z" fill="$c"/>"""
        case Mark.Bar     => Svg.rect(1, 2, 20, 8, s"""fill="$c" fill-opacity="0.55"""")
        case Mark.Whisker =>
          Svg.line(2, 6, 20, 6, s"""stroke="$c" stroke-width="1.5"""") +
            Svg.line(2, 2, 2, 10, s"""stroke="$c" stroke-width="1.5"""") +
            Svg.line(20, 2, 20, 10, s"""stroke="$c" stroke-width="1.5"""")
        case Mark.Tick => Svg.line(11, 1, 11, 11, s"""stroke="$c" stroke-width="2"""")
      s"""<li><svg width="22" height="12" viewBox="0 0 22 12" aria-hidden="true">$swatch</svg>${Html
          .escape(label)}</li>"""
