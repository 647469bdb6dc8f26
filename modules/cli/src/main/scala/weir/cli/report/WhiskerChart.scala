package weir.cli.report

/** Horizontal bars with whiskers, one row per item: the bar ends at the median, the whisker spans
  * min to max, a diamond marks a reference figure (the seed's), and a dashed vertical line marks a
  * bound common to every row. Rows without a median show their note instead. Pure.
  *
  * @param label
  *   what the chart shows, for screen readers
  * @param unit
  *   the values' unit, for the axis and tooltips (`ms`)
  * @param bound
  *   a name and value drawn as a vertical line across the rows (a lower bound)
  */
final case class WhiskerChart(
    label: String,
    unit: String,
    rows: List[WhiskerChart.Row],
    bound: Option[(String, Double)] = None,
    width: Int = 720
):
  import WhiskerChart.*

  private val frame = Rows(rows.size, rowHeight = 22.0, top = 30.0, width)
  import frame.{left, right}

  private val scale: Scale =
    val values = rows.flatMap(r => r.median ++ r.max ++ r.seed) ++ bound.map(_._2)
    Scale.linear(0, Scale.niceMax(values.maxOption.getOrElse(1.0)), left, right)

  private def fmt(v: Double) = LineChart.exact(v)

  /** The chart's SVG. */
  def svg: String =
    val body = rows.zipWithIndex.map { (row, i) =>
      val mid = frame.y(i) + frame.rowHeight / 2
      val marks = row.median match
        case None => Svg.text(left + 4, mid + 4, row.note, "start", "muted")
        case Some(median) =>
          val bar =
            Svg.rect(
              left,
              mid - 6,
              scale(median) - left,
              12,
              s"""fill="$barColour" fill-opacity="0.55""""
            )
          val whisker = (row.min, row.max) match
            case (Some(lo), Some(hi)) if hi > lo =>
              val (a, b) = (scale(lo), scale(hi))
              val stroke = s"""stroke="$whiskerColour" stroke-width="1.5""""
              Svg.line(a, mid, b, mid, stroke) + Svg.line(a, mid - 5, a, mid + 5, stroke) +
                Svg.line(b, mid - 5, b, mid + 5, stroke)
            case _ => ""
          val seed = row.seed.fold("") { s =>
            val x = scale(s)
            s"""<path d="M${Svg.n(x)} ${Svg.n(mid - 6)} L${Svg.n(x + 5)} ${Svg.n(mid)} L${Svg
                .n(x)} ${Svg.n(mid + 6)} L${Svg.n(x - 5)} ${Svg.n(mid)} Z" fill="$seedColour"/>"""
          }
          val end = (List(median) ++ row.max ++ row.seed).max
          bar + whisker + seed + Svg.text(scale(end) + 8, mid + 4, fmt(median), "start")
      Svg.titled(tooltip(row), frame.label(i, row.name) + marks)
    }
    val boundLine = bound.toList.flatMap((name, value) =>
      frame.bound(scale, value, s"$name ${fmt(value)} $unit", boundColour)
    )
    Svg.root(
      width,
      frame.height,
      label,
      (body ++ frame.grid(scale, 6) ++ boundLine ++ frame.axis(unit)).mkString("\n")
    )

  private def tooltip(row: Row): String =
    row.median.fold(s"${row.name}: ${row.note}") { m =>
      val spread = (row.min, row.max) match
        case (Some(lo), Some(hi)) => s" (min ${fmt(lo)}, max ${fmt(hi)})"
        case _                    => ""
      val seed = row.seed.fold("")(s => s", seed ${fmt(s)} $unit")
      s"${row.name}: median ${fmt(m)} $unit$spread$seed"
    }

  /** The legend: what the bar, whisker, diamond and line mean. */
  def legend: List[Figure.Key] =
    List(
      Figure.Key("median", barColour, Figure.Mark.Bar),
      Figure.Key("min to max", whiskerColour, Figure.Mark.Whisker)
    ) ++ (if rows.exists(_.seed.isDefined) then
            List(Figure.Key("the seed's figure", seedColour, Figure.Mark.Diamond))
          else Nil) ++ bound.map((name, _) =>
      Figure.Key(name, boundColour, Figure.Mark.Line(LineChart.Style.Dashed))
    )

  /** This chart as a [[Figure]] with its legend. */
  def figure(caption: String, note: String = ""): Figure = Figure(caption, svg, legend, note)

object WhiskerChart:
  private val barColour = Svg.colour(0)
  private val whiskerColour = "#1d2330"
  private val seedColour = Svg.colour(1)
  private val boundColour = Svg.colour(2)

  /** One row; `note` is shown when there is no median (a run that did not complete). */
  final case class Row(
      name: String,
      median: Option[Double],
      min: Option[Double],
      max: Option[Double],
      seed: Option[Double],
      note: String = ""
  )
