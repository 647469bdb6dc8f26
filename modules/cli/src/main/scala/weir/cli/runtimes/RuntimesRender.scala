package weir.cli.runtimes

import weir.cli.common.Args.Format
import weir.cli.common.RuntimeSyntax.label
import weir.cli.common.Table
import weir.cli.runtimes.RuntimesReport.Cell
import weir.lab.runtimes.{Burst, ProbeResult}

/** Renders a [[RuntimesReport]] as a terminal table, Markdown, CSV or JSON (the HTML report is
  * [[RuntimesPage]]). Pure: no effects.
  */
object RuntimesRender:

  def apply(format: Format, report: RuntimesReport): String = format match
    case Format.Text     => text(report)
    case Format.Markdown => markdown(report)
    case Format.Csv      => csv(report)
    case Format.Json     => RuntimesJson(report).noSpaces

  /** The report's first lines: how it was measured and what the columns mean. */
  def header(report: RuntimesReport): String =
    val p = report.plan
    val warm =
      if p.warmUpCalls > 0 then f"then warm-up bursts until ${p.warmUpCalls}%,d calls in all"
      else "no warm-up"
    s"weir runtimes: ${p.cycles} calls per fiber; JDK ${report.jdk}, ${report.cores} cores; " +
      s"each cell in a fresh JVM (-Dcats.effect.tracing.mode=none ${Fork.heap}): one cold burst, $warm, then ${p.rounds} timed burst(s). " +
      "ms = median timed burst (min..max); µs/call = ms x 1000 / (processes x cycles); x wsp = wsp time / this time (higher is faster); " +
      "cold = the JVM's first burst. threads at end: platform threads by state (R runnable, W waiting, TW timed waiting, B blocked). " +
      "seed = seed 004 (cats-effect 3.5.2, JDK 21, cycles not stated)."

  private def fixed(x: Double, digits: Int): String = s"%.${digits}f".format(x)

  // Milliseconds: whole above 10, one decimal below (a pure burst of 10 fibers takes about 1 ms).
  private def ms(x: Double): String = if x < 10 then fixed(x, 1) else fixed(x, 0)
  private def opt[A](o: Option[A])(f: A => String): String = o.fold("-")(f)

  private def states(result: ProbeResult): String =
    if result.states.isEmpty then "-"
    else
      def n(state: String) = result.states.getOrElse(state, 0)
      s"R${n("RUNNABLE")} W${n("WAITING")} TW${n("TIMED_WAITING")} B${n("BLOCKED")}"

  private def measured(r: ProbeResult): Boolean = r.outcome match
    case ProbeResult.Outcome.Skipped(_) | ProbeResult.Outcome.Failed(_) => false
    case _                                                              => true

  private def note(report: RuntimesReport, r: ProbeResult): String = r.outcome match
    case ProbeResult.Outcome.Completed => ""
    case ProbeResult.Outcome.Deadlocked =>
      s"deadlocked: no call finished for ${report.plan.stallAfter.toMillis} ms"
    case other => other.describe

  private val columns: List[Table.Column] =
    List("processes").map(Table.right) ++ List(Table.left("runtime")) ++ List(
      "ms",
      "min..max",
      "µs/call",
      "x wsp",
      "cold ms",
      "cold x wsp",
      "seed ms",
      "seed x wsp"
    ).map(Table.right) ++ List(Table.left("threads at end")) ++
      List("peak threads", "peak RSS MB").map(Table.right) :+ Table.left("note")

  private def cells(report: RuntimesReport, cell: Cell): List[String] =
    val r = cell.result
    val rounds = r.roundsMillis
    List(
      cell.processes.toString,
      cell.runtime.label,
      opt(r.millis)(ms),
      if r.completed && rounds.nonEmpty then s"${ms(rounds.min)}..${ms(rounds.max)}" else "-",
      opt(report.microsPerCall(cell))(fixed(_, 2)),
      opt(report.speedUp(cell))(fixed(_, 2)),
      opt(r.coldMillis)(ms),
      opt(report.coldSpeedUp(cell))(fixed(_, 2)),
      opt(report.seedMillis(cell))(_.toString),
      opt(report.seedSpeedUp(cell))(fixed(_, 2)),
      if measured(r) then states(r) else "-",
      if measured(r) then r.peakThreads.toString else "-",
      if measured(r) then opt(r.peakRssKb)(kb => fixed(kb / 1024.0, 0)) else "-",
      note(report, r)
    )

  /** One burst's cells as a table: the text report's body, and the HTML report's. */
  def burstTable(report: RuntimesReport, burst: Burst): Table =
    Table(columns, report.cells.filter(_.burst == burst).map(cells(report, _)))

  /** The burst's line above its table. */
  def burstTitle(report: RuntimesReport, burst: Burst): String =
    s"${burst.name}: processes fibers x ${report.plan.cycles} calls; ${burst.summary}"

  def text(report: RuntimesReport): String =
    val blocks =
      report.plan.bursts.map(b => burstTitle(report, b) + "\n" + burstTable(report, b).text)
    (header(report) :: blocks).mkString("\n\n")

  def markdown(report: RuntimesReport): String =
    val blocks = report.plan.bursts.map { b =>
      s"**${burstTitle(report, b)}**\n\n${burstTable(report, b).markdown}"
    }
    (s"_${header(report)}_" :: blocks).mkString("\n\n")

  def csv(report: RuntimesReport): String =
    val names = List(
      "burst",
      "processes",
      "runtime",
      "cycles",
      "outcome",
      "ms",
      "min_ms",
      "max_ms",
      "us_per_call",
      "x_wsp",
      "cold_ms",
      "cold_x_wsp",
      "seed_ms",
      "seed_x_wsp",
      "runnable",
      "waiting",
      "timed_waiting",
      "blocked",
      "peak_threads",
      "peak_rss_kb"
    )
    val rows = report.cells.map { cell =>
      val r = cell.result
      def n(state: String) = r.states.getOrElse(state, 0).toString
      val rounds = if r.completed then r.roundsMillis else Nil
      List(
        cell.burst.name,
        cell.processes.toString,
        cell.runtime.label,
        report.plan.cycles.toString,
        r.outcome.describe,
        r.millis.fold("")(fixed(_, 1)),
        rounds.minOption.fold("")(fixed(_, 1)),
        rounds.maxOption.fold("")(fixed(_, 1)),
        report.microsPerCall(cell).fold("")(fixed(_, 3)),
        report.speedUp(cell).fold("")(fixed(_, 4)),
        r.coldMillis.fold("")(fixed(_, 1)),
        report.coldSpeedUp(cell).fold("")(fixed(_, 4)),
        report.seedMillis(cell).fold("")(_.toString),
        report.seedSpeedUp(cell).fold("")(fixed(_, 4)),
        n("RUNNABLE"),
        n("WAITING"),
        n("TIMED_WAITING"),
        n("BLOCKED"),
        r.peakThreads.toString,
        r.peakRssKb.fold("")(_.toString)
      )
    }
    Table(names.map(Table.left), rows).csv
