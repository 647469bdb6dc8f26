package weir.lab.compare

import cats.effect.IO
import cats.effect.testkit.TestControl
import cats.syntax.all.*
import munit.CatsEffectSuite
import scala.concurrent.duration.*
import weir.Limits
import weir.engine.{Engine, EngineSettings, Processing}
import weir.lab.workload.{Progress, Scenario, SeededRandom}
import weir.strategy.{BlockingQueue, Strategy}

/** Counting what a strategy takes changes nothing in its timing: every strategy's virtual time on
  * every seed scenario is the same with the count as without, and the count is every batch.
  */
class TakenCountSuite extends CatsEffectSuite:
  override def munitIOTimeout: Duration = 120.seconds

  private def elapsed(
      strategy: Strategy,
      scenario: Scenario,
      counted: Boolean
  ): IO[(FiniteDuration, Long)] =
    val program = for
      progress <- Progress.create[IO]()
      workload = scenario.workload[IO](3L, progress)
      taken = new TakenCount
      start <- IO.monotonic
      _ <-
        if counted then
          Engine
            .create[IO](EngineSettings.default.withStrategy(strategy).withLimits(Limits.default))
            .flatMap(_.runToEnd(taken.count(workload.source))(workload.handler))
        else Processing.run(workload.source, strategy, Limits.default)(workload.handler)
      end <- IO.monotonic
      batches <- Engine
        .create[IO](EngineSettings.default)
        .flatMap(_.snapshot)
        .map(s => taken.into(s).batches)
    yield (end - start, batches)
    TestControl.executeEmbed(program, seed = Some(SeededRandom.schedulingSeed(3L)))

  private val strategies = Strategy.all.filterNot(_ == BlockingQueue)

  private def singleProducer(s: Scenario): Scenario =
    Scenario.of(s.name, s.produceDelay, s.consumeMin, s.consumeMax, producers = 1).toOption.get

  private def compare(
      scenarios: List[Scenario]
  )(check: (String, FiniteDuration, FiniteDuration) => Unit) =
    scenarios.traverse_ { scenario =>
      strategies.traverse_ { strategy =>
        (elapsed(strategy, scenario, counted = false), elapsed(strategy, scenario, counted = true))
          .mapN { case ((plain, _), (counted, batches)) =>
            val what = s"${strategy.name} on ${scenario.name} (${scenario.producers} producers)"
            check(what, plain, counted)
            assertEquals(batches, 10L, s"$what: batches")
          }
      }
    }

  test("one producer: the same virtual time exactly, or within 1 % for work stealing") {
    // Counting adds no time, but it adds steps to a fiber's run, which moves cats-effect's
    // automatic yields: where fibers are due at one instant and the scheduler picks among them
    // (work-stealing's racing workers, two producers), another pick can follow.
    compare(Scenario.seed.map(s => singleProducer(s).scaled(0.1))) { (what, plain, counted) =>
      if what.startsWith("work-stealing") then
        assert((counted - plain).toNanos.abs <= plain.toNanos / 100, s"$what: $plain, $counted")
      else assertEquals(counted, plain, what)
    }
  }

  test(
    "two producers: the same within 1 % (batches due at one instant may enter in another order)"
  ) {
    compare(Scenario.seed.map(_.scaled(0.1))) { (what, plain, counted) =>
      val off = (counted - plain).toNanos.abs.toDouble / plain.toNanos
      assert(off <= 0.01, f"$what: $plain without counting, $counted with (${off * 100}%.2f %%)")
    }
  }
