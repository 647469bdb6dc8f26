package weir.http

import cats.effect.{IO, Ref}
import cats.effect.testkit.TestControl
import cats.syntax.all.*
import munit.CatsEffectSuite
import scala.concurrent.duration.*
import weir.engine.{Run, RunOutcome, RunState, Snapshot}

/** A load's control ([[LoadControl]]): every stop reaches the run through its own stop or stop-now,
  * including one that comes before the run exists; the warm-up is skipped or cancelled by a stop.
  */
class LoadControlSuite extends CatsEffectSuite:

  /** A run that only records what it is told. */
  private def recording(told: Ref[IO, List[String]]): Run[IO] = new Run[IO]:
    def stop: IO[Unit] = told.update(_ :+ "stop")
    def stopNow: IO[Unit] = told.update(_ :+ "stopNow")
    def state: IO[RunState] = IO.pure(RunState.Running)
    def snapshot: IO[Snapshot] = IO.raiseError(new UnsupportedOperationException)
    def snapshots(every: FiniteDuration): fs2.Stream[IO, Snapshot] = fs2.Stream.empty
    def outcome: IO[RunOutcome] = IO.never
    def join: IO[Snapshot] = IO.never

  test("stops before the run are kept (the first reason) and told to the run as it starts") {
    for
      control <- LoadControl.create[IO]
      told <- Ref.of[IO, List[String]](Nil)
      before <- control.launching
      _ <- control.stop(Ending.DurationReached)
      _ <- control.stopNow(Ending.Interrupted)
      after <- control.launching
      _ <- control.running(recording(told), 1.second)
      atStart <- told.get
      _ <- control.stop(Ending.ServerGone)
      seen <- told.get
      why <- control.why
    yield
      assertEquals((before, after), (true, false))
      assertEquals(atStart, List("stopNow"))
      assertEquals(seen, List("stopNow", "stop"))
      assertEquals(why, Some(Ending.DurationReached))
  }

  test("a run started with no stop asked is told each stop as it comes") {
    for
      control <- LoadControl.create[IO]
      told <- Ref.of[IO, List[String]](Nil)
      _ <- control.running(recording(told), 1.second)
      none <- told.get
      _ <- control.stop(Ending.Interrupted)
      _ <- control.stopNow(Ending.Interrupted)
      seen <- told.get
      why <- control.why
    yield
      assertEquals(none, Nil)
      assertEquals(seen, List("stop", "stopNow"))
      assertEquals(why, Some(Ending.Interrupted))
  }

  test("a stop racing the run's start reaches the run exactly once") {
    val once = for
      control <- LoadControl.create[IO]
      told <- Ref.of[IO, List[String]](Nil)
      _ <- (control.stop(Ending.Interrupted), control.running(recording(told), 1.second)).parTupled
      seen <- told.get
    yield assertEquals(seen, List("stop"))
    once.parReplicateA_(1000)
  }

  test("a stop during the warm-up cancels it; one before it skips it") {
    val program = for
      control <- LoadControl.create[IO]
      started <- Ref.of[IO, Int](0)
      warmUp = started.update(_ + 1) >> IO.never[Unit]
      stopped <- (
        control.warming(warmUp),
        IO.sleep(3.seconds) >> control.stop(Ending.Interrupted)
      ).parTupled
      end <- IO.monotonic
      again <- control.warming(started.update(_ + 1))
      warming <- control.stage
      n <- started.get
    yield (stopped._1, end, again, warming, n)
    TestControl.executeEmbed(program).map { (first, end, again, warming, n) =>
      assertEquals((first, end), (None, 3.seconds))
      assertEquals((again, n), (None, 1))
      assertEquals(warming, LoadControl.Stage.Before[IO](warming = false))
    }
  }

  test("a warm-up that ends returns its result, and the stage says when it runs") {
    val program = for
      control <- LoadControl.create[IO]
      result <- control.warming(IO.sleep(1.second) >> control.stage)
      after <- control.stage
    yield (result, after)
    TestControl.executeEmbed(program).map { (result, after) =>
      assertEquals(result, Some(LoadControl.Stage.Before[IO](warming = true)))
      assertEquals(after, LoadControl.Stage.Before[IO](warming = false))
    }
  }
