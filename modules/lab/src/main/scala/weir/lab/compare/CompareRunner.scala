package weir.lab.compare

import cats.effect.IO
import cats.syntax.all.*
import weir.engine.Processing
import weir.strategy.Strategy
import weir.lab.run.{Outcome, Runner}
import weir.lab.workload.Progress
import weir.lab.workload.Scenario

/** Executes a [[ComparePlan]] one run at a time (runs never overlap, so they do not disturb each
  * other's timing) and collects a [[CompareReport]].
  *
  * A run that fails or deadlocks is recorded as such and the plan goes on. Cancelling stops the
  * current run and returns nothing.
  */
object CompareRunner:

  /** Told about every run as it starts and ends, for live views. Calls come from one fiber, in
    * order.
    */
  trait Listener:
    def started(
        scenario: Scenario,
        strategy: Strategy,
        repetition: Int,
        progress: Progress
    ): IO[Unit]
    def finished(
        scenario: Scenario,
        strategy: Strategy,
        repetition: Int,
        outcome: Outcome
    ): IO[Unit]

  object Listener:
    val silent: Listener = new Listener:
      def started(scenario: Scenario, strategy: Strategy, repetition: Int, progress: Progress) =
        IO.unit
      def finished(scenario: Scenario, strategy: Strategy, repetition: Int, outcome: Outcome) =
        IO.unit

  /** Runs every strategy of the plan once on a short scenario (slow consumer at 1 % of its timing,
    * about 60 ms a run) so that the measured runs do not pay for JIT compilation. The deadlock
    * demonstration is skipped. Outcomes are discarded.
    */
  def warmUp(plan: ComparePlan): IO[Unit] =
    val short = plan.copy(scenarios = List(Scenario.slowConsumer), scale = 0.01, repetitions = 1)
    plan.strategies
      .filterNot(_ == Strategy.deadlocking)
      .traverse_(strategy => runOnce(short, Scenario.slowConsumer, strategy, 0, Listener.silent))

  /** Runs the whole plan. */
  def run(plan: ComparePlan, listener: Listener = Listener.silent): IO[CompareReport] =
    val cells = for
      scenario <- plan.scenarios
      strategy <- plan.strategies
    yield (scenario, strategy)
    cells
      .traverse { (scenario, strategy) =>
        (0 until plan.repetitions).toList
          .traverse(repetition => runOnce(plan, scenario, strategy, repetition, listener))
          .map(outcomes => CompareReport.Measured(scenario, strategy, outcomes))
      }
      .map(CompareReport.of(plan, _))

  /** One run of `strategy` on `scenario` with the draws of `plan.seed + repetition`. */
  def runOnce(
      plan: ComparePlan,
      scenario: Scenario,
      strategy: Strategy,
      repetition: Int,
      listener: Listener
  ): IO[Outcome] =
    val scaled = scenario.scaled(plan.scale)
    for
      progress <- Progress.create[IO]()
      workload = scaled.workload[IO](plan.seed + repetition, progress)
      _ <- listener.started(scenario, strategy, repetition, progress)
      outcome <- plan.runtime.resource.use { runtime =>
        Runner.run(
          Processing.run(workload.source, strategy, plan.limits)(workload.handler),
          runtime,
          () => progress.events,
          plan.stallAfter(scenario)
        )
      }
      _ <- listener.finished(scenario, strategy, repetition, outcome)
    yield outcome
