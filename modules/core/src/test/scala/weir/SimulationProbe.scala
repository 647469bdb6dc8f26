package weir

import cats.effect.IO
import cats.syntax.all.*
import munit.CatsEffectSuite
import weir.workload.Scenario

class SimulationProbe extends CatsEffectSuite:
  test("probe") {
    val strategies = List(weir.strategy.ConcurrentProducer, weir.strategy.ConcurrentProducers, weir.strategy.WorkerPool, weir.strategy.Weir)
    (for
      scenario <- Scenario.seed
      strategy <- strategies
    yield (scenario, strategy)).traverse_ { (scenario, strategy) =>
      IO.realTime.flatMap { t0 =>
        (1 to 6).toList.traverse(seed => VirtualTime.elapsed(strategy, scenario, seed.toLong)).flatMap { ts =>
          IO.realTime.flatMap { t1 =>
            val mean = ts.map(_.toMillis).sum / ts.size.toDouble / 1000
            IO.println(f"${scenario.name}%-15s ${strategy.name}%-28s $mean%.3f s   (real ${(t1 - t0).toMillis} ms)")
          }
        }
      }
    }
  }
