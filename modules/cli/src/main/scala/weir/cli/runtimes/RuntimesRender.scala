package weir.cli.runtimes

import weir.cli.common.Encode
import weir.cli.common.Args.Format
import weir.cli.runtimes.RuntimesReport.Cell

/** Renders a [[RuntimesReport]] as a terminal table, Markdown, CSV or JSON. Pure: no effects. */
object RuntimesRender:

  def apply(format: Format, report: RuntimesReport): String = format match
    case Format.Text     => text(report)
    case Format.Markdown => markdown(report)
    case Format.Csv      => csv(report)
    case Format.Json     => json(report)

  private val columns =
    List(
      "processes",
      "runtime",
      "ms",
      "x wsp",
      "seed ms",
      "seed x wsp",
      "threads at end",
      "peak threads",
      "peak RSS MB",
      "note"
    )

  private def header(report: RuntimesReport): String =
    s"weir runtimes: ${report.plan.cycles} calls per fiber; JDK ${report.jdk}, ${report.cores} cores; " +
      s"each cell in a fresh JVM (-Dcats.effect.tracing.mode=none ${Fork.heap}), one run each. " +
      "x wsp = wsp time / this time (higher is faster). threads at end: platform threads by state " +
      "(R runnable, W waiting, TW timed waiting, B blocked). seed = seed 004 (cats-effect 3.5.2, JDK 21, cycles not stated)."

  private def fixed(x: Double, digits: Int): String = s"%.${digits}f".format(x)
  private def opt[A](o: Option[A])(f: A => String): String = o.fold("-")(f)

  private def states(result: ProbeResult): String =
    if result.states.isEmpty then "-"
    else
      val s = result.states
      def n(state: String) = s.getOrElse(state, 0)
      s"R${n("RUNNABLE")} W${n("WAITING")} TW${n("TIMED_WAITING")} B${n("BLOCKED")}"

  private def cells(report: RuntimesReport, cell: Cell): List[String] =
    val r = cell.result
    val measured = r.outcome match
      case ProbeResult.Outcome.Skipped(_) | ProbeResult.Outcome.Failed(_) => false
      case _                                                              => true
    List(
      cell.processes.toString,
      cell.runtime.label,
      if r.completed then fixed(r.millis, 0) else "-",
      opt(report.speedUp(cell))(fixed(_, 2)),
      opt(report.seedMillis(cell))(_.toString),
      opt(report.seedSpeedUp(cell))(fixed(_, 2)),
      if measured then states(r) else "-",
      if measured then r.peakThreads.toString else "-",
      if measured then opt(r.peakRssKb)(kb => fixed(kb / 1024.0, 0)) else "-",
      r.outcome match
        case ProbeResult.Outcome.Completed => ""
        case ProbeResult.Outcome.Deadlocked =>
          s"deadlocked: no call finished for ${report.plan.stallAfter.toMillis} ms"
        case other => other.describe
    )

  private def blockTitle(report: RuntimesReport, burst: Burst): String =
    s"${burst.name}: processes fibers x ${report.plan.cycles} calls; ${burst.summary}"

  def text(report: RuntimesReport): String =
    val blocks = report.plan.bursts.map { burst =>
      val rows = report.cells.filter(_.burst == burst).map(cells(report, _))
      val widths = columns.indices.map(i => (columns(i) :: rows.map(_(i))).map(_.length).max)
      def fmt(cs: List[String]) =
        cs.zipWithIndex
          .map((c, i) =>
            if i == 1 || i >= 6 then c.padTo(widths(i), ' ') else " " * (widths(i) - c.length) + c
          )
          .mkString("  ")
          .stripTrailing
      (blockTitle(report, burst) :: fmt(columns) :: rows.map(fmt)).mkString("\n")
    }
    (header(report) :: blocks).mkString("\n\n")

  def markdown(report: RuntimesReport): String =
    val blocks = report.plan.bursts.map { burst =>
      val rows =
        report.cells.filter(_.burst == burst).map(c => cells(report, c).mkString("| ", " | ", " |"))
      (s"**${blockTitle(report, burst)}**" :: "" :: columns.mkString("| ", " | ", " |") ::
        columns.map(_ => "---").mkString("|", "|", "|") :: rows).mkString("\n")
    }
    (s"_${header(report)}_" :: blocks).mkString("\n\n")

  def csv(report: RuntimesReport): String =
    val head =
      "burst,processes,runtime,cycles,outcome,ms,x_wsp,seed_ms,seed_x_wsp,runnable,waiting,timed_waiting,blocked,peak_threads,peak_rss_kb"
    val lines = report.cells.map { cell =>
      val r = cell.result
      def n(state: String) = r.states.getOrElse(state, 0).toString
      List(
        cell.burst.name,
        cell.processes.toString,
        cell.runtime.label,
        report.plan.cycles.toString,
        Encode.csv(r.outcome.describe),
        if r.completed then fixed(r.millis, 1) else "",
        report.speedUp(cell).fold("")(fixed(_, 4)),
        report.seedMillis(cell).fold("")(_.toString),
        report.seedSpeedUp(cell).fold("")(fixed(_, 4)),
        n("RUNNABLE"),
        n("WAITING"),
        n("TIMED_WAITING"),
        n("BLOCKED"),
        r.peakThreads.toString,
        r.peakRssKb.fold("")(_.toString)
      ).mkString(",")
    }
    (head :: lines).mkString("\n")

  def json(report: RuntimesReport): String =
    def str(s: String) = Encode.json(s)
    def num[A](o: Option[A])(f: A => String) = o.fold("null")(f)
    val p = report.plan
    val plan =
      s"""{"cycles":${p.cycles},"processes":${p.processes.mkString(
          "[",
          ",",
          "]"
        )},"runtimes":${p.runtimes
          .map(r => str(r.label))
          .mkString("[", ",", "]")},"stall_after_ms":${p.stallAfter.toMillis},"jdk":${str(
          report.jdk
        )},"cores":${report.cores}}"""
    val rows = report.cells.map { cell =>
      val r = cell.result
      val st = r.states.toList.sorted.map((k, v) => s"${str(k)}:$v").mkString("{", ",", "}")
      s"""{"burst":${str(cell.burst.name)},"processes":${cell.processes},"runtime":${str(
          cell.runtime.label
        )},"outcome":${str(r.outcome.describe)},"ms":${
          if r.completed then fixed(r.millis, 1) else "null"
        },"x_wsp":${num(report.speedUp(cell))(fixed(_, 4))},"seed_ms":${num(
          report.seedMillis(cell)
        )(_.toString)},"seed_x_wsp":${num(report.seedSpeedUp(cell))(
          fixed(_, 4)
        )},"threads_at_end":$st,"peak_threads":${r.peakThreads},"peak_rss_kb":${num(r.peakRssKb)(
          _.toString
        )}}"""
    }
    s"""{"plan":$plan,"cells":[${rows.mkString(",")}]}"""
