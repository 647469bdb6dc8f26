package weir.cli.compare

import scala.concurrent.duration.FiniteDuration
import weir.cli.common.Args.Format
import weir.cli.common.RuntimeSyntax.label
import weir.cli.common.Table
import weir.lab.compare.{ComparePlan, CompareReport}
import weir.lab.workload.Scenario

/** Renders a [[CompareReport]] as a terminal table, Markdown, CSV or JSON (the HTML report is
  * [[ComparePage]]). Pure: no effects.
  */
object CompareRender:

  def apply(format: Format, report: CompareReport): String = format match
    case Format.Text     => text(report)
    case Format.Markdown => markdown(report)
    case Format.Csv      => csv(report)
    case Format.Json     => CompareJson(report).noSpaces

  /** One line on what a scenario does, at the plan's scale. */
  def describe(scenario: Scenario, plan: ComparePlan): String =
    val s = scenario.scaled(plan.scale)
    s"produce ${ms(s.produceDelay)}/batch, handle ${ms(s.consumeMin)}..${ms(s.consumeMax)}, " +
      s"${s.total} tasks in batches of ${s.batchSize}, ${s.producers} producers, " +
      s"concurrency ${plan.limits.concurrency}, queue ${plan.limits.queueCapacity}"

  /** The report's first line: the plan and what the columns mean. */
  def header(report: CompareReport): String =
    val p = report.plan
    s"weir compare: runtime ${p.runtime.label}, scale ${p.scale}, ${p.repetitions} repetition(s), seed ${p.seed}; " +
      "times in ms; xbest = median / best median; xbound = median / lower bound; seed = the seed's published time x scale"

  private def ms(d: FiniteDuration): String =
    if d.toNanos % 1000000 == 0 then s"${d.toMillis} ms" else f"${d.toNanos / 1e6}%.1f ms"

  private def num(d: FiniteDuration): String = d.toMillis.toString
  private def ratio(r: Option[Double]): String = r.fold("-")(x => f"$x%.2f")

  private def cells(row: CompareReport.Row, withVirtual: Boolean): List[String] =
    val virtual =
      if withVirtual then
        List(row.virtual.fold("-")(num), row.overhead.fold("-")(x => f"${(x - 1) * 100}%+.1f%%"))
      else Nil
    List(
      row.strategy.name,
      row.summary.fold("-")(s => num(s.median)),
      row.summary.fold("-")(s => num(s.min)),
      row.summary.fold("-")(s => num(s.max)),
      ratio(row.toBest),
      ratio(row.toBound),
      row.published.fold("")(num)
    ) ++ virtual :+ row.problems.distinct.mkString("; ")

  private def columns(withVirtual: Boolean): List[Table.Column] =
    Table.left("strategy") :: List("median", "min", "max", "xbest", "xbound", "seed").map(
      Table.right
    ) ++ (if withVirtual then List(Table.right("virtual"), Table.right("overhead")) else Nil) :+
      Table.left("note")

  /** One scenario's rows as a table: the text report's body, and the HTML report's. */
  def scenarioTable(report: CompareReport, scenario: Scenario): Table =
    val withVirtual = report.rows.exists(_.virtual.isDefined)
    Table(columns(withVirtual), report.rowsOf(scenario).map(cells(_, withVirtual)))

  /** The scenario's line above its table. */
  def scenarioTitle(report: CompareReport, scenario: Scenario): String =
    val bound = num(scenario.scaled(report.plan.scale).lowerBound(report.plan.limits))
    s"${scenario.name}: ${describe(scenario, report.plan)}; lower bound $bound ms"

  def text(report: CompareReport): String =
    val blocks = report.plan.scenarios.map { scenario =>
      scenarioTitle(report, scenario) + "\n" + scenarioTable(report, scenario).text
    }
    (header(report) :: blocks).mkString("\n\n")

  def markdown(report: CompareReport): String =
    val scenarios = report.plan.scenarios
    val body = report.plan.strategies.map { strategy =>
      strategy.name :: scenarios.map { scenario =>
        report.rows.find(r => r.scenario == scenario && r.strategy == strategy).fold("") { row =>
          val ours =
            row.summary.fold(row.problems.headOption.getOrElse("-"))(s => s"${num(s.median)}")
          val seed = row.published.fold("")(p => s" (seed ${num(p)})")
          val virtual = row.overhead.fold("")(x => f" [${(x - 1) * 100}%+.1f%% vs virtual]")
          s"$ours$seed$virtual"
        }
      }
    }
    val table = Table(Table.left("strategy") :: scenarios.map(s => Table.right(s.name)), body)
    s"_${header(report)}_\n\n${table.markdown}"

  def csv(report: CompareReport): String =
    val columns = List(
      "scenario",
      "strategy",
      "runs",
      "completed",
      "median_ms",
      "min_ms",
      "max_ms",
      "to_best",
      "to_bound",
      "bound_ms",
      "seed_ms",
      "virtual_ms",
      "problems"
    ).map(Table.left)
    val rows = report.rows.map { row =>
      List(
        row.scenario.name,
        row.strategy.name,
        row.outcomes.size.toString,
        row.summary.fold(0)(_.count).toString,
        row.summary.fold("")(s => num(s.median)),
        row.summary.fold("")(s => num(s.min)),
        row.summary.fold("")(s => num(s.max)),
        row.toBest.fold("")(x => f"$x%.4f"),
        row.toBound.fold("")(x => f"$x%.4f"),
        num(row.bound),
        row.published.fold("")(num),
        row.virtual.fold("")(num),
        row.problems.mkString("; ")
      )
    }
    Table(columns, rows).csv
