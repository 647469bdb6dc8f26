package weir.postgres.queue.ui

import weir.postgres.queue.ui.UiData.Chart

/** The overview's chart, drawn on the server as inline SVG: completions and failures per second
  * (each bucket's count over its length), oldest on the left, now on the right. Pure.
  */
private[ui] object UiChart:

  private val width = 900
  private val height = 220
  private val left = 56
  private val right = 12
  private val top = 12
  private val bottom = 28

  /** The chart of `chart` over `minutes`. */
  def svg(chart: Chart, minutes: Int): String =
    val perSecond = (xs: Vector[Long]) => xs.map(_.toDouble / chart.bucketSeconds)
    val done = perSecond(chart.completed)
    val failed = perSecond(chart.failed)
    val peak = (done ++ failed).maxOption.getOrElse(0.0)
    val max = niceCeiling(peak)
    val n = math.max(1, done.size - 1)
    val plotW = width - left - right
    val plotH = height - top - bottom
    def x(i: Int) = left + plotW * i.toDouble / n
    def y(v: Double) = top + plotH * (1 - v / max)
    def line(vs: Vector[Double], cls: String) =
      val pts = vs.zipWithIndex.map((v, i) => f"${x(i)}%.1f,${y(v)}%.1f").mkString(" ")
      s"""<polyline class="$cls" points="$pts" />"""
    // Round steps: a fifth of 1, 5 or 10 times a power of ten, a quarter of 2 times one.
    val steps = if math.round(max / math.pow(10, math.floor(math.log10(max)))) == 2 then 4 else 5
    val grid = (0 to steps).map { k =>
      val v = max * k / steps
      f"""<line class="grid" x1="$left" x2="${width - right}" y1="${y(v)}%.1f" y2="${y(
          v
        )}%.1f" /><text x="${left - 6}" y="${y(v) + 4}%.1f" text-anchor="end">${label(v)}</text>"""
    }.mkString
    val axis =
      s"""<line class="axis" x1="$left" x2="$left" y1="$top" y2="${height - bottom}" /><line class="axis" x1="$left" x2="${width - right}" y1="${height - bottom}" y2="${height - bottom}" />"""
    val times =
      s"""<text x="$left" y="${height - 8}">$minutes min ago</text><text x="${width - right}" y="${height - 8}" text-anchor="end">now</text>"""
    val total = (xs: Vector[Long]) => xs.sum
    s"""<figure class="chart"><figcaption>Jobs per second over the last $minutes min <span class="legend"><span class="done">■ completed (${total(
        chart.completed
      )})</span> <span class="failed">■ failed attempts (${total(
        chart.failed
      )})</span></span></figcaption>
       |<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 $width $height" role="img" aria-label="completed and failed jobs per second">$grid$axis${line(
        done,
        "done"
      )}${line(failed, "failed")}$times</svg></figure>""".stripMargin

  private def label(v: Double): String =
    if v == 0 then "0" else if v >= 10 then f"$v%.0f" else if v >= 1 then f"$v%.1f" else f"$v%.2f"

  // 1, 2 or 5 times a power of ten at or above `v` (1 when nothing happened).
  private def niceCeiling(v: Double): Double =
    if v <= 0 then 1.0
    else
      val p = math.pow(10, math.floor(math.log10(v)))
      List(1.0, 2.0, 5.0, 10.0).map(_ * p).find(_ >= v).getOrElse(10 * p)
