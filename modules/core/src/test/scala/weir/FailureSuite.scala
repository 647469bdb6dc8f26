package weir
import weir.engine.Processing

import cats.effect.{IO, Ref}
import cats.effect.testkit.TestControl
import munit.CatsEffectSuite
import scala.concurrent.duration.*

/** Errors surface with the task that failed; cancellation leaves nothing running. */
class FailureSuite extends CatsEffectSuite:

  private val boom = new RuntimeException("boom")

  /** The strategies checked; the lab checks the seed's with this same suite. */
  protected def completing: List[weir.strategy.Strategy] = Fixtures.completing

  /** Those of [[completing]] that wait by suspending fibers, never by blocking threads. */
  protected def fiberOnly: List[weir.strategy.Strategy] = Fixtures.fiberOnly

  completing.foreach { strategy =>
    test(s"${strategy.name}: a handler error fails the run with the task that failed") {
      val handler = (task: Int) => IO.sleep(1.milli) >> IO.raiseWhen(task == 37)(boom)
      Processing
        .run(
          Fixtures.source(200, 20, 2),
          strategy,
          Limits.default.withConcurrency(Concurrency(8)).withQueueCapacity(Capacity(16))
        )(handler)
        .attempt
        .map(result => assertEquals(result, Left(WeirError.TaskFailed(37, boom))))
    }
  }

  fiberOnly.foreach { strategy =>
    test(s"${strategy.name}: cancelling midway stops producers and handlers; nothing runs after") {
      val program = for
        active <- Ref.of[IO, Int](0)
        events <- Ref.of[IO, Int](0)
        handler = (_: Int) =>
          (active.update(_ + 1) >> IO.sleep(100.millis) >> events.update(_ + 1))
            .guarantee(active.update(_ - 1))
        source = Fixtures.source(10000, 50, 3)
        fiber <- Processing
          .run(source, strategy, Limits.default.withConcurrency(Concurrency(20)))(handler)
          .start
        _ <- IO.sleep(1.second)
        before <- events.get
        _ <- fiber.cancel
        stillActive <- active.get
        atCancel <- events.get
        _ <- IO.sleep(10.seconds)
        after <- events.get
        outcome <- fiber.join
      yield (before, stillActive, atCancel, after, outcome.isCanceled)
      TestControl.executeEmbed(program).map { (before, stillActive, atCancel, after, canceled) =>
        assert(before > 0, "the run had started handling tasks")
        assertEquals(stillActive, 0, "handler calls still running after cancel returned")
        assertEquals(after, atCancel, "tasks were handled after cancel returned")
        assert(canceled)
      }
    }
  }
