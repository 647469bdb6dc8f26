package weir.engine

import cats.effect.{IO, Ref}
import cats.effect.testkit.TestControl
import cats.syntax.all.*
import fs2.Stream
import munit.CatsEffectSuite
import scala.concurrent.duration.*
import weir.{
  Attempts,
  Capacity,
  Concurrency,
  Limits,
  NonNegativeDuration,
  PositiveDuration,
  Source,
  WeirError
}

/** The engine's share path ([[ShareRunner]]) under the default strategy, whose workers take many
  * tasks at once when tasks are fast: every policy applies to each task of a share exactly as to a
  * task on its own. Virtual time; racy cases repeated.
  */
class ShareRunnerSuite extends CatsEffectSuite:

  private val boom = new RuntimeException("boom")
  private def source(n: Int) = Source.single(Stream.range(0, n).covary[IO])
  private def settings(f: EngineSettings => EngineSettings*): EngineSettings =
    f.foldLeft(EngineSettings.default.withLimits(Limits(Concurrency(4), Capacity(64))))((s, step) =>
      step(s)
    )
  private def repeated[A](n: Int)(program: IO[A])(check: A => Unit): IO[Unit] =
    List.fill(n)(TestControl.executeEmbed(program)).sequence.map(_.foreach(check))

  test("skip: a failure in the middle of a share is counted, the rest of the share runs") {
    val program = for
      ran <- Ref.of[IO, Set[Int]](Set.empty)
      engine <- Engine.create[IO](settings().withErrorPolicy(ErrorPolicy.Skip))
      snap <- engine.run(source(1000))(i => ran.update(_ + i) >> IO.raiseWhen(i % 100 == 7)(boom))
      all <- ran.get
    yield (snap, all)
    repeated(10)(program) { (snap, all) =>
      assertEquals(all, Set.range(0, 1000))
      assertEquals(
        (snap.succeeded, snap.failed),
        (990L, Map(FailureClass.Raised("RuntimeException") -> 10L))
      )
      assertEquals((snap.inFlight, snap.queued, snap.taken), (0L, 0L, 1000L))
    }
  }

  test("retry: a task of a share that fails twice is tried again, and the share goes on") {
    val program = for
      tries <- Ref.of[IO, Map[Int, Int]](Map.empty)
      retry = RetryPolicy.exponential(
        Attempts(3),
        NonNegativeDuration.millis(1),
        NonNegativeDuration.millis(1)
      )
      engine <- Engine.create[IO](settings().withRetry(retry))
      snap <- engine.run(source(500)) { i =>
        tries.modify(m => (m.updated(i, m.getOrElse(i, 0) + 1), m.getOrElse(i, 0) + 1)).flatMap {
          n => IO.raiseWhen(i % 50 == 3 && n < 3)(boom)
        }
      }
      counts <- tries.get
    yield (snap, counts)
    repeated(10)(program) { (snap, counts) =>
      assertEquals(counts.values.sum, 500 + 10 * 2)
      assertEquals((snap.succeeded, snap.retried, snap.failedTotal), (500L, 20L, 0L))
    }
  }

  test("timeout: each task of a share gets its deadline; the late ones time out, the rest go on") {
    // Tasks 10, 20, 30 sleep 5 s against a 1 s timeout; the others take no time. One worker, so
    // the run's time is exactly the three timeouts.
    val one =
      settings(_.withConcurrency(Concurrency(1)), _.withTaskTimeout(PositiveDuration.seconds(1)))
    val program = for
      done <- Ref.of[IO, Set[Int]](Set.empty)
      engine <- Engine.create[IO](one.withErrorPolicy(ErrorPolicy.Skip))
      snap <- engine.run(source(40)) { i =>
        (if i % 10 == 0 && i > 0 then IO.sleep(5.seconds) else IO.unit) >> done.update(_ + i)
      }
      end <- IO.monotonic
      finished <- done.get
    yield (snap, end, finished)
    repeated(20)(program) { (snap, end, finished) =>
      assertEquals(end, 3.seconds)
      assertEquals(finished, Set.range(0, 40) -- Set(10, 20, 30))
      assertEquals((snap.succeeded, snap.failed), (37L, Map(FailureClass.TimedOut -> 3L)))
    }
  }

  test(
    "real runtime: tasks of shares racing their 1 ms deadline each end exactly once, and are counted once (20 engines at once)"
  ) {
    // Not virtual time: the share's fiber and its watchdog run on two real threads; tasks sleep 0,
    // 1 or 2 ms against a 1 ms timeout, so they end on either side of the deadline and on it.
    val n = 2000
    val racing =
      settings(_.withConcurrency(Concurrency(8)), _.withTaskTimeout(PositiveDuration.millis(1)))
    val one = for
      seen <- Ref.of[IO, Map[Int, Int]](Map.empty)
      engine <- Engine.create[IO](racing.withErrorPolicy(ErrorPolicy.Skip))
      snap <- engine.runTo(source(n))(i => IO.sleep((i % 3).millis))(r =>
        seen.update(m => m.updated(r.task, m.getOrElse(r.task, 0) + 1))
      )
      ended <- seen.get
    yield
      assertEquals(ended.keySet, Set.range(0, n))
      assertEquals(ended.values.filter(_ != 1).toList, Nil)
      assertEquals(snap.succeeded + snap.failedTotal, n.toLong, s"$snap")
      assertEquals((snap.inFlight, snap.queued, snap.taken), (0L, 0L, n.toLong))
      snap.failedTotal
    // The race was run: some tasks lost to their deadline.
    one.parReplicateA(20).map(timedOut => assert(timedOut.sum > 0, s"$timedOut"))
  }

  test("timeout with retries: each attempt of a task in a share gets the full timeout") {
    val one =
      settings(_.withConcurrency(Concurrency(1)), _.withTaskTimeout(PositiveDuration.seconds(1)))
    val retry =
      RetryPolicy.exponential(Attempts(2), NonNegativeDuration.zero, NonNegativeDuration.zero)
    val program = for
      engine <- Engine.create[IO](one.withRetry(retry).withErrorPolicy(ErrorPolicy.Skip))
      snap <- engine.run(source(5))(i => if i == 2 then IO.sleep(1.hour) else IO.unit)
      end <- IO.monotonic
    yield (snap, end)
    repeated(10)(program) { (snap, end) =>
      assertEquals(
        (end, snap.retried, snap.failed),
        (2.seconds, 1L, Map(FailureClass.TimedOut -> 1L))
      )
    }
  }

  test("fail-fast: a failure names its task; the tasks after it in the share do not run") {
    val program = for
      ran <- Ref.of[IO, Set[Int]](Set.empty)
      engine <- Engine.create[IO](settings(_.withConcurrency(Concurrency(1))))
      outcome <- engine
        .run(source(100))(i => ran.update(_ + i) >> IO.raiseWhen(i == 40)(boom))
        .attempt
      all <- ran.get
      snap <- engine.snapshot
    yield (outcome, all, snap)
    repeated(10)(program) { (outcome, all, snap) =>
      assertEquals(outcome.map(_ => ()), Left(WeirError.TaskFailed(40, boom)))
      assertEquals(all, Set.range(0, 41))
      assertEquals(snap.succeeded, 40L)
      assertEquals(snap.ended + snap.notStarted, snap.taken, snap.toString)
    }
  }

  test("a stop in the middle of a share: the tasks of it not begun do not start") {
    // One worker, one share of up to 64 tasks of 1 s each; the stop comes at 2.5 s.
    val program = for
      ran <- Ref.of[IO, Int](0)
      engine <- Engine.create[IO](
        settings(
          _.withConcurrency(Concurrency(1)),
          _.withStopGrace(NonNegativeDuration.seconds(10))
        )
      )
      snap <- (IO.sleep(2500.millis) >> engine.stop).background.surround(
        engine.run(source(64))(_ => IO.sleep(1.second) >> ran.update(_ + 1))
      )
      n <- ran.get
      end <- IO.monotonic
    yield (snap, n, end)
    repeated(10)(program) { (snap, n, end) =>
      assertEquals((n, end, snap.succeeded), (3, 3.seconds, 3L))
      assertEquals(snap.ended + snap.notStarted, snap.taken, snap.toString)
      assertEquals((snap.inFlight, snap.queued), (0L, 0L))
    }
  }
