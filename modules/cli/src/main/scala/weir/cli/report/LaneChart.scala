package weir.cli.report

/** Lanes of a run's events over time, one per run on a shared time axis: the picture of the seed's
  * `P`/`C` lanes. Each lane shows a tick for every batch taken from a producer, the tasks in flight
  * as a shaded area (scaled to `concurrency`), and the tasks started and ended so far as lines
  * (scaled to `total`): a stall is a flat `started` line, a drain tail a long last climb of
  * `ended`. Data come as per-interval counts ([[LaneChart.Lane]]). Pure.
  *
  * @param label
  *   what the chart shows, for screen readers
  * @param bound
  *   a name and a time (s) drawn as a vertical line across the lanes (a lower bound)
  */
final case class LaneChart(
    label: String,
    lanes: List[LaneChart.Lane],
    concurrency: Long,
    total: Long,
    bound: Option[(String, Double)] = None,
    width: Int = 720
):
  import LaneChart.*

  private val laneHeight = 46.0
  private val frame = Rows(lanes.size, laneHeight, top = 22.0, width)
  import frame.{left, right}

  private val span: Double =
    val ends = lanes.map(l => math.max(l.interval * l.buckets.size, l.end.getOrElse(0.0)))
    Scale.niceMax((ends ++ bound.map(_._2)).maxOption.getOrElse(1.0))
  private val x = Scale.linear(0, span, left, right)

  /** The chart's SVG. */
  def svg: String =
    val body = lanes.zipWithIndex.map((lane, i) => drawLane(lane, i))
    val boundLine = bound.toList.flatMap((name, at) => frame.bound(x, at, name, boundColour))
    val axis = frame.axis("seconds since the run started")
    Svg.root(
      width,
      frame.height,
      label,
      (frame.grid(x, 8) ++ body ++ boundLine ++ axis).mkString("\n")
    )

  private def drawLane(lane: Lane, index: Int): String =
    val y = frame.y(index)
    val strip = y + 3 // the P ticks: y+3 .. y+11
    val plotTop = y + 14
    val plotBottom = y + laneHeight - 4
    def level(v: Long, of: Long) =
      plotBottom - (plotBottom - plotTop) * math.min(1.0, v.toDouble / math.max(1L, of))
    val b = lane.buckets
    val mids = b.indices.map(i => x((i + 0.5) * lane.interval))
    val ends = b.indices.map(i => x((i + 1) * lane.interval))
    val inFlight = Svg.area(
      (x(0) -> plotBottom) +: mids.zip(b.map(c => level(c.inFlight, concurrency))),
      plotBottom,
      s"""fill="$inFlightColour" fill-opacity="0.3" stroke="none""""
    )
    def cumulative(f: Bucket => Long) =
      (x(0) -> plotBottom) +: ends.zip(b.map(f).scanLeft(0L)(_ + _).tail.map(level(_, total)))
    val started = Svg.polyline(
      cumulative(_.started),
      s"""stroke="$startedColour" stroke-width="1.5" stroke-dasharray="4 3""""
    )
    val ended = Svg.polyline(cumulative(_.ended), s"""stroke="$endedColour" stroke-width="1.5"""")
    val batches = b.indices.filter(i => b(i).batches > 0).map { i =>
      val k = b(i).batches
      val shown = math.min(k, 4L).toInt
      val ticks = (0 until shown).map(j =>
        Svg.line(
          mids(i) + j * 2.5,
          strip,
          mids(i) + j * 2.5,
          strip + 9,
          s"""stroke="$batchColour" stroke-width="1.5""""
        )
      )
      ticks.mkString + (if k > shown then Svg.text(mids(i) + 12, strip + 9, s"×$k", "start")
                        else "")
    }
    val end = lane.end.fold("") { t =>
      Svg.line(x(t), plotTop - 2, x(t), plotBottom, s"""stroke="$endedColour" stroke-width="1"""") +
        Svg.text(
          right + 8,
          y + laneHeight / 2 + 4,
          s"${LineChart.exact(t * 1000)} ms",
          "start",
          "muted"
        )
    }
    val peak = b.map(_.inFlight).maxOption.getOrElse(0L)
    val tip =
      s"${lane.name}: ${b.map(_.batches).sum} batches, ${b.map(_.ended).sum} tasks ended, at most $peak in flight" +
        lane.end.fold("")(t => s", ${LineChart.exact(t * 1000)} ms")
    Svg.titled(
      tip,
      frame.label(index, lane.name) + inFlight + started + ended + batches.mkString + end
    )

  /** The legend: what each mark of a lane means. */
  def legend: List[Figure.Key] = List(
    Figure.Key("a batch taken from a producer (P)", batchColour, Figure.Mark.Tick),
    Figure.Key(s"tasks in flight (of $concurrency)", inFlightColour, Figure.Mark.Area),
    Figure
      .Key(s"tasks started (of $total)", startedColour, Figure.Mark.Line(LineChart.Style.Dashed)),
    Figure.Key(s"tasks ended (of $total)", endedColour, Figure.Mark.Line(LineChart.Style.Line))
  ) ++ bound.map((name, _) =>
    Figure.Key(name, boundColour, Figure.Mark.Line(LineChart.Style.Dashed))
  )

  /** This chart as a [[Figure]] with its legend. */
  def figure(caption: String, note: String = ""): Figure = Figure(caption, svg, legend, note)

object LaneChart:
  private val batchColour = Svg.colour(4)
  private val inFlightColour = Svg.colour(0)
  private val startedColour = Svg.colour(3)
  private val endedColour = "#1d2330"
  private val boundColour = Svg.colour(2)

  /** One interval's counts: batches taken, tasks started, tasks ended, and the most in flight. */
  final case class Bucket(batches: Long, started: Long, ended: Long, inFlight: Long)

  /** One run's lane.
    *
    * @param interval
    *   seconds each bucket covers, from the run's start
    * @param end
    *   when the run ended, seconds (none if it did not complete)
    */
  final case class Lane(
      name: String,
      interval: Double,
      buckets: Vector[Bucket],
      end: Option[Double]
  )
