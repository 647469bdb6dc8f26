package weir.lab

import cats.effect.IO
import cats.syntax.all.*
import munit.CatsEffectSuite
import scala.concurrent.duration.*
import weir.lab.workload.Scenario
import weir.strategy.{Strategy, Weir}

/** The default strategy's virtual-time figures on the seed's scenarios, against weir's other
  * strategies and the targets of ADR 0004.
  */
class WeirVirtualTimeSuite extends CatsEffectSuite:
  override def munitIOTimeout: Duration = 5.minutes

  test(
    "virtual time, seeds 1..20: within the targets and at least as fast as weir's other strategies"
  ) {
    // Targets: the best mean any strategy reaches in the same simulation (ADR 0004).
    val targets = Map("slow-producer" -> 5.18, "balanced" -> 12.3, "slow-consumer" -> 5.68)
    def mean(strategy: Strategy, scenario: Scenario): IO[Double] =
      (1L to 20L).toList.traverse(seed => VirtualTime.elapsed(strategy, scenario, seed)).map {
        times =>
          times.map(_.toNanos).sum / times.size.toDouble / 1e9
      }
    Scenario.seed.traverse_ { scenario =>
      (
        mean(Weir, scenario),
        Strategy.own.filterNot(_ == Weir).traverse(s => mean(s, scenario).map(s.name -> _))
      )
        .flatMapN { (ours, others) =>
          IO.println(
            f"${scenario.name}%-14s weir $ours%.3f s; " + others
              .map((n, m) => f"$n $m%.3f")
              .mkString(", ")
          ) >>
            IO {
              assert(ours <= targets(scenario.name), f"${scenario.name}: weir $ours%.3f s")
              others.foreach((name, m) =>
                assert(ours <= m * 1.001, f"${scenario.name}: weir $ours%.3f s > $name $m%.3f s")
              )
            }
        }
    }
  }
