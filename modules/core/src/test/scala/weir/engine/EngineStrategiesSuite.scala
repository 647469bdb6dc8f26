package weir.engine

import cats.effect.IO
import cats.effect.testkit.TestControl
import cats.syntax.all.*
import fs2.Stream
import munit.CatsEffectSuite
import scala.concurrent.duration.*
import weir.{Capacity, Concurrency, Fixtures, Limits, NonNegativeDuration, Source}

/** Every strategy under the engine keeps the engine's contract: each task exactly once as a result,
  * and a graceful stop that ends the run with every task taken accounted for.
  */
class EngineStrategiesSuite extends CatsEffectSuite:

  private def settings(strategy: weir.strategy.Strategy) = EngineSettings.default
    .withStrategy(strategy)
    .withLimits(Limits.default.withConcurrency(Concurrency(8)).withQueueCapacity(Capacity(16)))
    .withErrorPolicy(ErrorPolicy.Skip)

  /** The strategies checked; the lab checks the seed's with this same suite. */
  protected def completing: List[weir.strategy.Strategy] = Fixtures.completing

  /** Those of [[completing]] that wait by suspending fibers, never by blocking threads. */
  protected def fiberOnly: List[weir.strategy.Strategy] = Fixtures.fiberOnly

  completing.foreach { strategy =>
    test(s"${strategy.name}: every task exactly once as a result, failures skipped and recorded") {
      val boom = new RuntimeException("boom")
      Engine.create[IO](settings(strategy)).flatMap { engine =>
        engine
          .results(Fixtures.source(300, 20, 3))(i =>
            IO.cede >> IO.raiseWhen(i % 7 == 0)(boom).as(-i)
          )
          .compile
          .toVector
          .product(engine.snapshot)
          .map { (results, snap) =>
            assertEquals(results.map(_.task).sorted, Vector.range(0, 300))
            assertEquals(results.map(_.index).sorted, Vector.range(0L, 300L))
            results.foreach { r =>
              val want =
                if r.task % 7 == 0 then TaskOutcome.Failed(boom) else TaskOutcome.Succeeded(-r.task)
              assertEquals(r.outcome, want)
            }
            assertEquals((snap.succeeded, snap.failedTotal, snap.taken), (257L, 43L, 300L))
          }
      }
    }
  }

  fiberOnly.foreach { strategy =>
    test(s"${strategy.name}: a stop ends an endless run; every task taken is accounted for") {
      val endless = Source.partitioned(
        Stream.iterate(0)(_ + 2).covary[IO],
        Stream.iterate(1)(_ + 2).covary[IO]
      )
      val program = Engine
        .create[IO](settings(strategy).withStopGrace(NonNegativeDuration.millis(500)))
        .flatMap { engine =>
          val work = engine.run(endless)(_ => IO.sleep(100.millis))
          (IO.sleep(1.second) >> engine.stop).background.surround(work).product(IO.monotonic)
        }
      // Repeated: a task ends at the stop's instant, and either may come first. Tasks in flight
      // at the stop must finish (they take 100 ms of the 500 ms grace), never be cancelled.
      List
        .fill(10)(TestControl.executeEmbed(program))
        .sequence
        .map(_.foreach { (snap, end) =>
          assert(end >= 1.second && end <= 1100.millis, s"ended at $end")
          assertEquals(snap.ended + snap.notStarted, snap.taken, snap.toString)
          assertEquals((snap.inFlight, snap.queued), (0L, 0L))
          assert(snap.succeeded >= 10, snap.toString)
          assertEquals(snap.cancelled, 0L, snap.toString)
        })
    }
  }
