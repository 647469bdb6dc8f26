package weir.lab
import weir.engine.Processing
import weir.strategy.Strategy

import cats.effect.IO
import munit.CatsEffectSuite
import scala.concurrent.duration.*
import weir.lab.run.{Outcome, Runner}
import weir.lab.strategy.Strategies
import weir.runtime.RuntimePreset
import weir.lab.workload.Progress
import weir.lab.workload.Scenario

/** The seed's deadlock: two thread-blocking consumers started first on a real 2-thread pool. */
class DeadlockSuite extends CatsEffectSuite:
  override def munitIOTimeout: Duration = 60.seconds

  private def runOn(preset: RuntimePreset, strategy: Strategy): IO[Outcome] =
    val scenario = Scenario.slowConsumer.scaled(0.01)
    for
      progress <- Progress.create[IO]()
      workload = scenario.workload[IO](7L, progress)
      outcome <- preset.resource.use { runtime =>
        Runner.run(
          Processing.run(workload.source, strategy)(workload.handler),
          runtime,
          () => progress.events,
          2.seconds
        )
      }
    yield outcome

  test("real-blocking-queue on fixed:2 is reported deadlocked within seconds, not hung") {
    IO.monotonic.flatMap { start =>
      runOn(RuntimePreset.Fixed(2), Strategies.deadlocking).flatMap { outcome =>
        IO.monotonic.map { end =>
          outcome match
            case Outcome.Deadlocked(after, quiet) =>
              assert(quiet >= 2.seconds, s"quiet for $quiet")
              assert(after < 15.seconds, s"detected after $after")
              assert(end - start < 30.seconds)
            case other => fail(s"expected a deadlock, got $other")
        }
      }
    }
  }

  test("the same strategy completes where threads suffice (fixed:8)") {
    runOn(RuntimePreset.Fixed(8), Strategies.deadlocking).map {
      case Outcome.Completed(_) => ()
      case other                => fail(s"expected completion, got $other")
    }
  }

  test("blocking-queue completes on fixed:2 (one thread-blocking consumer leaves a thread)") {
    runOn(RuntimePreset.Fixed(2), weir.lab.strategy.BlockingQueue).map {
      case Outcome.Completed(_) => ()
      case other                => fail(s"expected completion, got $other")
    }
  }
