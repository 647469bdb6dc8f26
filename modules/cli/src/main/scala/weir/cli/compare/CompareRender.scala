package weir.cli.compare

import weir.cli.common.Encode
import scala.concurrent.duration.FiniteDuration
import weir.cli.common.Args.Format
import weir.lab.compare.{ComparePlan, CompareReport}
import weir.lab.workload.Scenario

/** Renders a [[CompareReport]] as a terminal table, Markdown, CSV or JSON. Pure: no effects. */
object CompareRender:

  def apply(format: Format, report: CompareReport): String = format match
    case Format.Text     => text(report)
    case Format.Markdown => markdown(report)
    case Format.Csv      => csv(report)
    case Format.Json     => json(report)

  /** One line on what a scenario does, at the plan's scale. */
  def describe(scenario: Scenario, plan: ComparePlan): String =
    val s = scenario.scaled(plan.scale)
    s"produce ${ms(s.produceDelay)}/batch, handle ${ms(s.consumeMin)}..${ms(s.consumeMax)}, " +
      s"${s.total} tasks in batches of ${s.batchSize}, ${s.producers} producers, " +
      s"concurrency ${plan.limits.concurrency}, queue ${plan.limits.queueCapacity}"

  private def header(report: CompareReport): String =
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

  private def columns(withVirtual: Boolean) =
    List("strategy", "median", "min", "max", "xbest", "xbound", "seed") ++
      (if withVirtual then List("virtual", "overhead") else Nil) :+ "note"

  private def hasVirtual(report: CompareReport) = report.rows.exists(_.virtual.isDefined)

  def text(report: CompareReport): String =
    val blocks = report.plan.scenarios.map { scenario =>
      val withVirtual = hasVirtual(report)
      val columns = CompareRender.columns(withVirtual)
      val rows = report.rowsOf(scenario).map(cells(_, withVirtual))
      val widths = columns.indices.map(i => (columns(i) :: rows.map(_(i))).map(_.length).max)
      def fmt(cs: List[String]) =
        cs.zipWithIndex
          .map((c, i) =>
            if i == 0 || i == cs.size - 1 then c.padTo(widths(i), ' ')
            else " " * (widths(i) - c.length) + c
          )
          .mkString("  ")
          .stripTrailing
      val bound = num(scenario.scaled(report.plan.scale).lowerBound(report.plan.limits))
      (s"${scenario.name}: ${describe(scenario, report.plan)}; lower bound $bound ms" ::
        fmt(columns) :: rows.map(fmt)).mkString("\n")
    }
    (header(report) :: blocks).mkString("\n\n")

  def markdown(report: CompareReport): String =
    val scenarios = report.plan.scenarios
    val strategies = report.plan.strategies
    val head = s"| strategy | ${scenarios.map(_.name).mkString(" | ")} |"
    val rule = s"|---|${scenarios.map(_ => "---:").mkString("|")}|"
    val body = strategies.map { strategy =>
      val cellsOf = scenarios.map { scenario =>
        report.rows.find(r => r.scenario == scenario && r.strategy == strategy).fold("") { row =>
          val ours =
            row.summary.fold(row.problems.headOption.getOrElse("-"))(s => s"${num(s.median)}")
          val seed = row.published.fold("")(p => s" (seed ${num(p)})")
          val virtual = row.overhead.fold("")(x => f" [${(x - 1) * 100}%+.1f%% vs virtual]")
          s"$ours$seed$virtual"
        }
      }
      s"| ${strategy.name} | ${cellsOf.mkString(" | ")} |"
    }
    (s"_${header(report)}_" :: "" :: head :: rule :: body).mkString("\n")

  def csv(report: CompareReport): String =
    val head =
      "scenario,strategy,runs,completed,median_ms,min_ms,max_ms,to_best,to_bound,bound_ms,seed_ms,virtual_ms,problems"
    val lines = report.rows.map { row =>
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
        Encode.csv(row.problems.mkString("; "))
      ).mkString(",")
    }
    (head :: lines).mkString("\n")

  def json(report: CompareReport): String =
    def str(s: String) = Encode.json(s)
    def opt[A](o: Option[A])(f: A => String) = o.fold("null")(f)
    val p = report.plan
    val plan =
      s"""{"runtime":${str(
          p.runtime.label
        )},"scale":${p.scale},"repetitions":${p.repetitions},"seed":${p.seed},"concurrency":${p.limits.concurrency},"queue":${p.limits.queueCapacity}}"""
    val rows = report.rows.map { row =>
      val runs = row.outcomes.map(o => str(o.describe)).mkString("[", ",", "]")
      s"""{"scenario":${str(row.scenario.name)},"strategy":${str(
          row.strategy.name
        )},"median_ms":${opt(row.summary)(s => num(s.median))},"min_ms":${opt(row.summary)(s =>
          num(s.min)
        )},"max_ms":${opt(row.summary)(s => num(s.max))},"to_best":${opt(row.toBest)(x =>
          f"$x%.4f"
        )},"to_bound":${opt(row.toBound)(x => f"$x%.4f")},"bound_ms":${num(
          row.bound
        )},"seed_ms":${opt(row.published)(num)},"virtual_ms":${opt(row.virtual)(
          num
        )},"runs":$runs}"""
    }
    s"""{"plan":$plan,"rows":[${rows.mkString(",")}]}"""
