package weir.lab.compare

import scala.concurrent.duration.*
import weir.strategy.Strategy
import weir.lab.run.Outcome
import weir.lab.compare.Summary
import weir.lab.workload.Scenario

/** What a comparison measured: one row per scenario and strategy, in the plan's order. */
final case class CompareReport(plan: ComparePlan, rows: List[CompareReport.Row]):

  /** The rows of one scenario. */
  def rowsOf(scenario: Scenario): List[CompareReport.Row] = rows.filter(_.scenario == scenario)

object CompareReport:

  /** One run: how it ended and what happened over its time. */
  final case class Run(outcome: Outcome, timeline: Timeline)

  /** The runs of one scenario and strategy, in repetition order. */
  final case class Measured(scenario: Scenario, strategy: Strategy, runs: List[Run]):
    /** The runs' outcomes. */
    def outcomes: List[Outcome] = runs.map(_.outcome)

    /** The timeline of the completed run closest to the median time (the earlier on a tie), or of
      * the first run when none completed.
      */
    def typical(median: Option[FiniteDuration]): Option[Timeline] =
      val completed = runs.flatMap(r => r.outcome.completedIn.map(_ -> r.timeline))
      median
        .flatMap(m => completed.minByOption((t, _) => (t - m).toNanos.abs).map(_._2))
        .orElse(runs.headOption.map(_.timeline))

  /** One scenario and strategy.
    *
    * @param summary
    *   median, min and max wall time of the completed runs (none if no run completed)
    * @param toBest
    *   median over the best median of the scenario
    * @param toBound
    *   median over the scenario's lower bound
    * @param published
    *   the seed's figure for this cell, multiplied by the plan's time scale
    * @param timeline
    *   what happened over time in the run closest to the median ([[Measured.typical]])
    * @param virtual
    *   median of the same runs (same seeds) in virtual time, where it was computed: the time the
    *   strategy takes with no CPU cost at all, so `summary.median / virtual` is the real-time
    *   overhead
    */
  final case class Row(
      scenario: Scenario,
      strategy: Strategy,
      outcomes: List[Outcome],
      summary: Option[Summary],
      bound: FiniteDuration,
      toBest: Option[Double],
      toBound: Option[Double],
      published: Option[FiniteDuration],
      timeline: Option[Timeline],
      virtual: Option[FiniteDuration] = None
  ):
    /** Real median over virtual median, when both are known. */
    def overhead: Option[Double] =
      for
        s <- summary
        v <- virtual if v.toNanos > 0
      yield s.median.toNanos.toDouble / v.toNanos

    /** Runs that did not complete, described. */
    def problems: List[String] = outcomes.collect {
      case o @ (_: Outcome.Deadlocked | _: Outcome.Failed) => o.describe
    }

  /** Summarises the measured cells of `plan`. */
  def of(plan: ComparePlan, measured: List[Measured]): CompareReport =
    val summaries = measured.map(m => m -> Summary.of(m.outcomes.flatMap(_.completedIn)))
    val bestByScenario = summaries
      .groupBy(_._1.scenario)
      .view
      .mapValues(_.flatMap(_._2.map(_.median)).minOption)
      .toMap
    val rows = summaries.map { (m, summary) =>
      val bound = m.scenario.scaled(plan.scale).lowerBound(plan.limits)
      def ratio(to: FiniteDuration) = summary.map(_.median.toNanos.toDouble / to.toNanos)
      Row(
        m.scenario,
        m.strategy,
        m.outcomes,
        summary,
        bound,
        bestByScenario.get(m.scenario).flatten.flatMap(ratio(_)),
        ratio(bound),
        Published
          .figure(m.scenario.name, m.strategy.name)
          .map(d => (d.toNanos * plan.scale).round.nanos),
        m.typical(summary.map(_.median))
      )
    }
    CompareReport(plan, rows)
