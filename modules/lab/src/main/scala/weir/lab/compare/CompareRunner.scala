package weir.lab.compare

import cats.effect.{IO, Ref}
import cats.syntax.all.*
import weir.engine.{Engine, EngineSettings, Snapshot}
import weir.strategy.Strategy
import weir.lab.compare.CompareReport.Run
import weir.lab.run.{Outcome, Runner}
import weir.lab.strategy.Strategies
import weir.lab.workload.{Progress, Scenario}

/** Executes a [[ComparePlan]] one run at a time (runs never overlap, so they do not disturb each
  * other's timing) and collects a [[CompareReport]].
  *
  * A run that fails or deadlocks is recorded as such and the plan goes on. Cancelling stops the
  * current run and returns nothing.
  */
object CompareRunner:

  /** Told about every run as it starts, every statistics sample while it runs, and its end, for
    * live views. Calls about one run come in that order, from one fiber at a time; a slow listener
    * delays the next sample, never the run.
    */
  trait Listener:
    /** A run starts. */
    def started(scenario: Scenario, strategy: Strategy, repetition: Int): IO[Unit]

    /** The engine's statistics of the current run, sampled every timeline interval (see
      * [[ComparePlan.timelineInterval]]) and once more at its end.
      */
    def sampled(snapshot: Snapshot): IO[Unit]

    /** The run ended. */
    def finished(
        scenario: Scenario,
        strategy: Strategy,
        repetition: Int,
        outcome: Outcome
    ): IO[Unit]

  object Listener:
    /** A listener that ignores everything. */
    val silent: Listener = new Listener:
      def started(scenario: Scenario, strategy: Strategy, repetition: Int) = IO.unit
      def sampled(snapshot: Snapshot) = IO.unit
      def finished(scenario: Scenario, strategy: Strategy, repetition: Int, outcome: Outcome) =
        IO.unit

  /** Runs every strategy of the plan once on a short scenario (slow consumer at 1 % of its timing,
    * about 60 ms a run) so that the measured runs do not pay for JIT compilation. The deadlock
    * demonstration is skipped. Outcomes are discarded.
    */
  def warmUp(plan: ComparePlan): IO[Unit] =
    val short = plan.copy(scenarios = List(Scenario.slowConsumer), scale = 0.01, repetitions = 1)
    plan.strategies
      .filterNot(_ == Strategies.deadlocking)
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
          .map(runs => CompareReport.Measured(scenario, strategy, runs))
      }
      .map(CompareReport.of(plan, _))

  /** One run of `strategy` on `scenario` with the draws of `plan.seed + repetition`, on the engine
    * (its public `runToEnd`, the run that is never stopped: no fiber of the engine's own, so the
    * strategy's timing is its alone), on a fresh runtime of the plan's. While it runs, a sampler on
    * the caller's runtime reads the engine's statistics every timeline interval into the run's
    * [[Timeline]] and the listener.
    */
  def runOnce(
      plan: ComparePlan,
      scenario: Scenario,
      strategy: Strategy,
      repetition: Int,
      listener: Listener
  ): IO[Run] =
    val scaled = scenario.scaled(plan.scale)
    val settings = EngineSettings.default.withStrategy(strategy).withLimits(plan.limits)
    for
      progress <- Progress.create[IO]()
      workload = scaled.workload[IO](plan.seed + repetition, progress)
      timeline <- Ref.of[IO, Timeline](Timeline.start(plan.timelineInterval(scenario)))
      _ <- listener.started(scenario, strategy, repetition)
      outcome <- plan.runtime.resource.use { runtime =>
        Engine.create[IO](settings).flatMap { engine =>
          val sample = engine.snapshot.flatMap { s =>
            timeline.update(_.record(s)) >> listener.sampled(s)
          }
          val sampling = (timeline.get.flatMap(t => IO.sleep(t.interval)) >> sample).foreverM
          val program = engine.runToEnd(workload.source)(workload.handler)
          sampling.background
            .surround(
              Runner.run(program, runtime, () => progress.events, plan.stallAfter(scenario))
            )
            .flatTap(_ => sample)
        }
      }
      _ <- listener.finished(scenario, strategy, repetition, outcome)
      recorded <- timeline.get
    yield Run(outcome, recorded)
