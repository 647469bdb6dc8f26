package weir.engine

import cats.effect.IO
import cats.effect.testkit.TestControl
import cats.syntax.all.*
import fs2.Stream
import munit.CatsEffectSuite
import scala.concurrent.duration.*
import weir.{Capacity, Concurrency, NonNegativeDuration, Source}
import weir.strategy.UnorderedPool

/** The run's state machine ([[RunState]]) through [[Engine.start]]'s handle, under virtual time:
  * exact times, states and counts.
  *
  * The workload of most tests: two slots, tasks started in the source's order; task 0 takes 3 s,
  * task 1 8 s, task 2 (started at 3 s in task 0's slot) 100 s, every later one 100 s.
  */
class RunLifecycleSuite extends CatsEffectSuite:

  private val settings = EngineSettings.default
    .withStrategy(UnorderedPool)
    .withLimits(weir.Limits(Concurrency(2), Capacity(2)))
    .withStopGrace(NonNegativeDuration.seconds(10))

  private val durations = Vector(3, 8, 100).map(_.seconds)
  private def work(i: Int): IO[Unit] = IO.sleep(durations.lift(i).getOrElse(100.seconds))
  private val tasks = Source.single(Stream.range(0, 50).covary[IO])

  private def at[A](t: FiniteDuration)(fa: IO[A]): IO[A] = IO.monotonic.flatMap { now =>
    IO.sleep(t - now) >> fa
  }

  private final case class Seen(
      states: List[RunState],
      outcome: RunOutcome,
      end: FiniteDuration,
      snap: Snapshot
  )

  test("a run that ends on its own: running, then settled as completed") {
    val program =
      Engine.start(settings, Source.single(Stream.range(0, 3).covary[IO]))(work).use { run =>
        for
          first <- run.state
          snap <- run.join
          end <- IO.monotonic
          last <- run.state
          outcome <- run.outcome
        yield Seen(List(first, last), outcome, end, snap)
      }
    TestControl.executeEmbed(program).map { seen =>
      assertEquals(seen.states, List(RunState.Running, RunState.Settled(RunOutcome.Completed)))
      assertEquals(seen.outcome, RunOutcome.Completed)
      assertEquals(seen.end, 103.seconds) // task 2 starts at 3 s and takes 100 s
      assertEquals((seen.snap.succeeded, seen.snap.failedTotal), (3L, 0L))
    }
  }

  test("stop, then stop again during the grace: the first deadline holds; cut off at it") {
    val program = Engine.start(settings, tasks)(work).use { run =>
      for
        _ <- at(4.seconds)(run.stop)
        stopping <- run.state
        _ <- at(10.seconds)(run.stop)
        still <- run.state
        snap <- run.join
        end <- IO.monotonic
        outcome <- run.outcome
      yield Seen(List(stopping, still), outcome, end, snap)
    }
    TestControl.executeEmbed(program).map { seen =>
      assertEquals(seen.states, List(RunState.Stopping(14.seconds), RunState.Stopping(14.seconds)))
      // Task 1 ended at 8 s, within the grace; task 2 was still running at 14 s.
      assertEquals(seen.end, 14.seconds)
      assertEquals(seen.outcome, RunOutcome.Stopped(cutOff = true))
      assertEquals(seen.snap.succeeded, 2L)
      assertEquals(seen.snap.cancelled, 1L)
      assertEquals(seen.snap.notStarted, seen.snap.taken - 3)
      assertEquals((seen.snap.inFlight, seen.snap.queued), (0L, 0L))
    }
  }

  test("a stop whose tasks in flight all finish within the grace: stopped, not cut off") {
    val short = Source.single(Stream.range(0, 2).covary[IO] ++ Stream.sleep_[IO](1.hour))
    val program = Engine.start(settings, short)(work).use { run =>
      for
        _ <- at(4.seconds)(run.stop)
        snap <- run.join
        end <- IO.monotonic
        outcome <- run.outcome
      yield Seen(Nil, outcome, end, snap)
    }
    TestControl.executeEmbed(program).map { seen =>
      assertEquals(seen.end, 8.seconds) // task 1's end; the source's wait was halted at 4 s
      assertEquals(seen.outcome, RunOutcome.Stopped(cutOff = false))
      assertEquals((seen.snap.taken, seen.snap.succeeded, seen.snap.failedTotal), (2L, 2L, 0L))
    }
  }

  test("stop-now during the grace: cut off at once, the tasks in flight cancelled") {
    val program = Engine.start(settings, tasks)(work).use { run =>
      for
        _ <- at(4.seconds)(run.stop)
        _ <- at(6.seconds)(run.stopNow)
        cut <- run.state
        snap <- run.join
        end <- IO.monotonic
        outcome <- run.outcome
      yield Seen(List(cut), outcome, end, snap)
    }
    TestControl.executeEmbed(program).map { seen =>
      assertEquals(seen.states, List(RunState.CutOff))
      assertEquals(seen.end, 6.seconds)
      assertEquals(seen.outcome, RunOutcome.Stopped(cutOff = true))
      assertEquals(seen.snap.succeeded, 1L)
      assertEquals(seen.snap.cancelled, 2L)
      assertEquals(seen.snap.notStarted, seen.snap.taken - 3)
    }
  }

  test("the resource released during a stop's grace: cancelled at once, no grace left") {
    val program =
      for
        handle <- Engine.start(settings, tasks)(work).use { run =>
          at(4.seconds)(run.stop) >> at(6.seconds)(IO.pure(run))
        }
        end <- IO.monotonic
        state <- handle.state
        outcome <- handle.outcome
        snap <- handle.snapshot
      yield Seen(List(state), outcome, end, snap)
    TestControl.executeEmbed(program).map { seen =>
      assertEquals(seen.end, 6.seconds)
      assertEquals(seen.states, List(RunState.Settled(RunOutcome.Cancelled)))
      assertEquals(seen.outcome, RunOutcome.Cancelled)
      assertEquals(seen.snap.succeeded, 1L)
      assertEquals(seen.snap.cancelled, 2L)
    }
  }

  test("a stop before the run begins: it takes no task and calls no handler") {
    val program =
      for
        engine <- Engine.create[IO](settings)
        _ <- engine.stop
        calls <- IO.ref(0)
        snap <- engine.run(tasks)(i => calls.update(_ + 1) >> work(i))
        end <- IO.monotonic
        outcome <- engine.outcome
        called <- calls.get
      yield (Seen(Nil, outcome, end, snap), called)
    TestControl.executeEmbed(program).map { (seen, called) =>
      assertEquals(seen.end, Duration.Zero)
      assertEquals(seen.outcome, RunOutcome.Stopped(cutOff = false))
      assertEquals(called, 0)
      assertEquals((seen.snap.taken, seen.snap.ended), (0L, 0L))
    }
  }

  test("a source that would fail after the stop: halted first, the run ends stopped") {
    val boom = new RuntimeException("boom")
    val failing = Source.single(
      Stream(0, 1).covary[IO] ++ Stream.sleep_[IO](5.seconds) ++ Stream.raiseError[IO](boom)
    )
    def outcome(stopAt: Option[FiniteDuration]) =
      Engine.start(settings, failing)(work).use { run =>
        stopAt.fold(IO.unit)(t => at(t)(run.stop)) >>
          (run.outcome, IO.monotonic, run.snapshot).tupled
      }
    TestControl.executeEmbed((outcome(Some(1.second)), outcome(None)).tupled).map {
      case ((stopped, stoppedAt, snap), (failed, failedAt, _)) =>
        // Stopped at 1 s: the source's wait is halted, its error never raised; tasks 0 and 1 end.
        assertEquals(stopped, RunOutcome.Stopped(cutOff = false))
        assertEquals(stoppedAt, 8.seconds)
        assertEquals((snap.succeeded, snap.failedTotal), (2L, 0L))
        // Not stopped: the error fails the run at 5 s (8 s + 5 s on the shared clock).
        assertEquals(failed, RunOutcome.Failed(boom))
        assertEquals(failedAt, 13.seconds)
    }
  }

  test("join raises the error of a failed run; the outcome keeps it") {
    val boom = new RuntimeException("boom")
    val program = Engine
      .start(settings, tasks)(i => IO.raiseWhen(i == 1)(boom) >> work(i))
      .use(run => (run.join.attempt, run.outcome).tupled)
    TestControl.executeEmbed(program).map { (joined, outcome) =>
      val failure = joined.left.map(_.getCause)
      assertEquals(failure, Left(boom))
      assert(
        outcome match
          case RunOutcome.Failed(_) => true; case _ => false
        ,
        outcome.toString
      )
    }
  }

  test("the state machine: only forward, and nothing after settling") {
    import RunState.*
    import RunState.Event.*
    val s = Stopping(5.seconds)
    assertEquals(next(Running, Stop(1.second, 4.seconds)), (s, List(Action.Halt)))
    assertEquals(next(s, Stop(2.seconds, 4.seconds)), (s, Nil))
    assertEquals(next(s, GraceOver), (CutOff, List(Action.Cut)))
    assertEquals(next(Running, GraceOver), (Running, Nil))
    assertEquals(next(Running, StopNow), (CutOff, List(Action.Halt, Action.Cut)))
    assertEquals(next(CutOff, Stop(3.seconds, 1.second)), (CutOff, Nil))
    val stopped = Settled(RunOutcome.Stopped(cutOff = true))
    assertEquals(
      next(CutOff, Ended(End.Returned)),
      (stopped, List(Action.Settle(RunOutcome.Stopped(cutOff = true))))
    )
    assertEquals(next(stopped, StopNow), (stopped, Nil))
    assertEquals(next(stopped, Ended(End.Cancelled)), (stopped, Nil))
    assertEquals(next(s, Ended(End.Cancelled))._1, Settled(RunOutcome.Cancelled))
  }
