package weir.lab
import weir.Limits
import weir.engine.Processing
import weir.strategy.Strategy

import cats.effect.IO
import cats.effect.testkit.TestControl
import scala.concurrent.duration.*
import weir.lab.workload.Progress
import weir.lab.workload.{Scenario, SeededRandom}

/** Runs a strategy on a scenario in virtual time and returns the virtual wall time. */
object VirtualTime:

  def elapsed(
      strategy: Strategy,
      scenario: Scenario,
      seed: Long,
      limits: Limits = Limits.default
  ): IO[FiniteDuration] =
    val program = for
      progress <- Progress.create[IO]()
      workload = scenario.workload[IO](seed, progress)
      start <- IO.monotonic
      _ <- Processing.run(workload.source, strategy, limits)(workload.handler)
      end <- IO.monotonic
      _ <- IO.raiseUnless(progress.consumed == scenario.total.toLong)(
        new AssertionError(s"${strategy.name} handled ${progress.consumed} of ${scenario.total}")
      )
    yield end - start
    TestControl.executeEmbed(program, seed = Some(SeededRandom.schedulingSeed(seed)))
