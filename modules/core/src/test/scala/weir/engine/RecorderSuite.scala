package weir.engine

import cats.effect.{IO, Ref}
import cats.effect.testkit.TestControl
import fs2.Stream
import munit.CatsEffectSuite
import scala.concurrent.duration.*
import weir.{Capacity, Concurrency, NonNegativeDuration, Source}
import weir.strategy.UnorderedPool

/** [[Recorder]] through [[Engine.startRecorded]], under virtual time: every result recorded once, a
  * sample every tick and one more at the end, all seen before the outcome is.
  */
class RecorderSuite extends CatsEffectSuite:

  private val settings = EngineSettings.default
    .withStrategy(UnorderedPool)
    .withLimits(weir.Limits(Concurrency(2), Capacity(2)))
    .withErrorPolicy(ErrorPolicy.Skip)
    .withStopGrace(NonNegativeDuration.seconds(1))

  // Task i takes i + 1 seconds; every third one fails.
  private def work(i: Int): IO[Int] =
    IO.sleep((i + 1).seconds) >> IO.raiseWhen(i % 3 == 2)(new IllegalStateException("no")).as(i)

  private final case class Seen(results: Vector[TaskResult[Int, Int]], samples: Vector[Snapshot])

  private def recorded(tasks: Int)(during: Run[IO] => IO[Unit]): IO[(Seen, Snapshot)] =
    (Ref.of[IO, Seen](Seen(Vector.empty, Vector.empty))).flatMap { seen =>
      val recorder = new Recorder[IO, Int, Int]:
        def record(r: TaskResult[Int, Int]): IO[Unit] =
          seen.update(s => s.copy(results = s.results :+ r))
        def sample(snapshot: Snapshot): IO[Unit] =
          seen.update(s => s.copy(samples = s.samples :+ snapshot))
      val source = Source.single(Stream.range(0, tasks).covary[IO])
      Engine.startRecorded(settings, source, recorder, tick = 1250.millis)(work).use { run =>
        during(run) >> run.join.flatMap(last => seen.get.map((_, last)))
      }
    }

  test("every result once, a sample every tick, and the last at the end before the outcome") {
    TestControl.executeEmbed(recorded(6)(_ => IO.unit)).map { (seen, last) =>
      // Two slots: 0 (1 s) and 1 (2 s) start at 0; 2 (3 s) at 1 s; 3 (4 s) at 2 s; 4 (5 s) at 4 s;
      // 5 (6 s) at 6 s. They end at 1, 2, 4, 6, 9 and 12 s; ticks every 1.25 s, and at the end.
      assertEquals(seen.results.map(_.task).sorted, Vector.range(0, 6))
      assertEquals(seen.results.count(!_.outcome.succeeded), 2)
      val ticks = (1 to 9).map(_ * 1250L).map(_.millis).toVector
      assertEquals(seen.samples.map(_.elapsed), ticks :+ 12.seconds)
      assertEquals(seen.samples.map(_.ended), Vector(1L, 2L, 2L, 3L, 4L, 4L, 4L, 5L, 5L, 6L))
      // Each tick's rate is since the tick before: 1 task in 1.25 s, then 1 more, then none.
      assertEquals(seen.samples.map(_.ratePerSecond).take(3), Vector(0.8, 0.8, 0.0))
      assertEquals(
        seen.samples.last.copy(ratePerSecond = 0, recentLatency = last.recentLatency),
        last.copy(ratePerSecond = 0)
      )
      assertEquals(last.failed, Map(FailureClass.Raised("IllegalStateException") -> 2L))
    }
  }

  test("a stop: not-started tasks are recorded as such; cancelled ones are not recorded") {
    val program = recorded(50)(run => IO.sleep(3500.millis) >> run.stop)
    TestControl.executeEmbed(program).map { (seen, last) =>
      // At 3.5 s 0 and 1 have ended; 2 (1..4 s) ends within the grace; 3 (2..6 s) is cut off at
      // 4.5 s.
      val notStarted = seen.results.count(_.outcome == TaskOutcome.NotStarted)
      assertEquals(seen.results.size - notStarted, 3)
      assertEquals(
        seen.results.filterNot(_.outcome == TaskOutcome.NotStarted).map(_.task).sorted,
        Vector(0, 1, 2)
      )
      assertEquals(notStarted.toLong, last.notStarted)
      assertEquals(last.cancelled, 1L)
      assertEquals(seen.samples.last.cancelled, 1L)
      assertEquals(seen.samples.last.elapsed, 4500.millis)
    }
  }
