package weir.cli.report

/** The frame of a chart drawn as horizontal rows over a shared x axis ([[WhiskerChart]],
  * [[LaneChart]]): names in a left column, alternate rows shaded, a grid and tick labels from the x
  * scale, a dashed vertical bound across the rows, and the axis line with its label. Pure.
  *
  * @param count
  *   rows
  * @param rowHeight
  *   each row's height
  * @param top
  *   the first row's top (room for the bound's label above)
  * @param width
  *   the chart's width; the rows' plot runs from [[left]] to [[right]]
  */
private[report] final case class Rows(count: Int, rowHeight: Double, top: Double, width: Int):
  val left: Double = 200.0
  val right: Double = width - 64.0
  val bottom: Double = top + rowHeight * count
  val height: Int = (bottom + 36).toInt

  /** The top of row `i`. */
  def y(i: Int): Double = top + i * rowHeight

  /** Row `i`'s shading (every other row) and its name, right-aligned against the plot. */
  def label(i: Int, name: String): String =
    val band = if i % 2 == 0 then Svg.rect(0, y(i), width, rowHeight, """fill="#f5f7fa"""") else ""
    band + Svg.text(left - 8, y(i) + rowHeight / 2 + 4, name, "end")

  /** Vertical grid lines and their labels at `scale`'s round values. */
  def grid(scale: Scale, ticks: Int): List[String] =
    scale.ticks(ticks).flatMap { v =>
      List(
        Svg.line(scale(v), top - 4, scale(v), bottom, """class="grid""""),
        Svg.text(scale(v), bottom + 16, LineChart.compact(v), "middle", "muted")
      )
    }

  /** A dashed vertical line at `at` across every row, labelled above them. */
  def bound(scale: Scale, at: Double, label: String, colour: String): List[String] =
    val x = scale(at)
    List(
      Svg.line(
        x,
        top - 6,
        x,
        bottom,
        s"""stroke="$colour" stroke-width="1.5" stroke-dasharray="6 4""""
      ),
      Svg.text(x, top - 10, label, if x > (left + right) / 2 then "end" else "start")
    )

  /** The x axis under the rows, with its label. */
  def axis(label: String): List[String] = List(
    Svg.line(left, bottom, right, bottom, """class="axis""""),
    Svg.text((left + right) / 2, bottom + 32, label, "middle")
  )
