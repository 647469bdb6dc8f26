package weir.engine

import cats.effect.{IO, Ref}
import cats.effect.std.Random
import cats.effect.testkit.TestControl
import cats.syntax.all.*
import fs2.Stream
import munit.CatsEffectSuite
import scala.concurrent.duration.*
import weir.{
  Attempts,
  Capacity,
  Concurrency,
  ConfigError,
  NonNegativeDuration,
  PositiveDuration,
  Source,
  WeirError
}
import weir.strategy.UnorderedPool

/** The engine's policies, each under virtual time (TestControl): exact times, exact counts. */
class EngineSuite extends CatsEffectSuite:

  private def source(n: Int): Source[IO, Int] = Source.single(Stream.range(0, n).covary[IO])

  private def settings(f: EngineSettings => EngineSettings*): EngineSettings =
    f.foldLeft(inOrder)((s, step) => step(s))

  private val boom = new RuntimeException("boom")

  // Tasks start in the source's order, one per free slot: times below follow from that alone.
  private val inOrder = EngineSettings.default.withStrategy(UnorderedPool)

  test("results: every task once, with its value, attempts and exact latency") {
    val program = Engine.create[IO](settings(_.withConcurrency(Concurrency(4)))).flatMap { engine =>
      engine
        .results(source(10))(i => IO.sleep((i + 1).seconds).as(i * 2))
        .compile
        .toVector
        .product(engine.snapshot)
    }
    TestControl.executeEmbed(program).map { (results, snap) =>
      assertEquals(results.map(_.task).sorted, Vector.range(0, 10))
      results.foreach { r =>
        assertEquals(r.outcome, TaskOutcome.Succeeded(r.task * 2))
        assertEquals((r.attempts, r.latency), (1, (r.task + 1).seconds))
      }
      assertEquals(results.map(_.index).sorted, Vector.range(0L, 10L))
      assertEquals((snap.taken, snap.succeeded, snap.failedTotal), (10L, 10L, 0L))
      assertEquals((snap.inFlight, snap.queued), (0L, 0L))
      assertEquals(snap.latency.max, 10.seconds)
    }
  }

  test("ordered results come in the source's order even when later tasks end first") {
    val program = Engine
      .create[IO](settings(_.withConcurrency(Concurrency(5))))
      .flatMap(_.resultsInOrder(source(20))(i => IO.sleep((20 - i).millis).as(i)).compile.toVector)
    TestControl.executeEmbed(program).map(rs => assertEquals(rs.map(_.task), Vector.range(0, 20)))
  }

  test("fail-fast: the first failure ends the run with its task and cancels tasks in flight") {
    val program = for
      cancelled <- Ref.of[IO, Int](0)
      engine <- Engine.create[IO](settings(_.withConcurrency(Concurrency(4))))
      handler = (i: Int) =>
        if i == 5 then IO.sleep(1.second) >> IO.raiseError(boom)
        else IO.sleep(10.seconds).onCancel(cancelled.update(_ + 1))
      outcome <- engine.run(source(100))(handler).attempt
      start <- IO.monotonic
      n <- cancelled.get
      snap <- engine.snapshot
    yield (outcome, n, start, snap)
    // Repeated: tasks ending at the same instant run in any order.
    List
      .fill(20)(TestControl.executeEmbed(program))
      .sequence
      .map(_.foreach { (outcome, cancelled, end, snap) =>
        assertEquals(outcome.map(_ => ()), Left(WeirError.TaskFailed(5, boom)))
        // Tasks 0-3 start at 0; 4-7 at 10 s; task 5 fails at 11 s and 4, 6, 7 are cancelled.
        assertEquals((end, cancelled), (11.seconds, 3))
        // Of the tasks taken, 0-7 started; every other one counts as never started.
        assertEquals(
          (snap.failed, snap.cancelled, snap.notStarted),
          (Map(FailureClass.Raised("RuntimeException") -> 1L), 3L, snap.taken - 8),
          snap.toString
        )
      })
  }

  test("skip: a failure becomes a result with its cause and the run goes on") {
    val program =
      Engine.create[IO](settings().withErrorPolicy(ErrorPolicy.Skip)).flatMap { engine =>
        engine
          .results(source(50))(i => IO.raiseWhen(i % 10 == 3)(boom).as(i))
          .compile
          .toVector
          .product(engine.snapshot)
      }
    TestControl.executeEmbed(program).map { (results, snap) =>
      val failed = results.filterNot(_.outcome.succeeded)
      assertEquals(failed.map(_.task).sorted, Vector(3, 13, 23, 33, 43))
      failed.foreach(r => assertEquals((r.outcome, r.attempts), (TaskOutcome.Failed(boom), 1)))
      assertEquals(results.size, 50)
      assertEquals(
        (snap.succeeded, snap.failed),
        (45L, Map(FailureClass.Raised("RuntimeException") -> 5L))
      )
    }
  }

  test("retry: exact backoff with full jitter, attempts counted, success on the last attempt") {
    val policy = RetryPolicy
      .exponential(Attempts(4), NonNegativeDuration.millis(100), NonNegativeDuration.millis(250))
    val program = for
      random <- Random.scalaUtilRandomSeedLong[IO](42L)
      expected <- Random
        .scalaUtilRandomSeedLong[IO](42L)
        .flatMap(r => (1 to 3).toList.traverse(k => r.nextDouble.map(policy.delay(k, _))))
      tries <- Ref.of[IO, List[FiniteDuration]](Nil)
      engine <- Engine.create[IO](settings().withRetry(policy), random)
      handler = (_: Int) =>
        IO.monotonic.flatMap(now => tries.modify(ts => (now :: ts, ts.size))).flatMap { before =>
          IO.raiseWhen(before < 3)(boom).as("ok")
        }
      results <- engine.results(source(1))(handler).compile.toVector
      at <- tries.get.map(_.reverse)
      snap <- engine.snapshot
    yield (expected, at, results, snap)
    TestControl.executeEmbed(program).map { (delays, at, results, snap) =>
      // Ceilings 100, 200, then 250 ms (capped); each wait drawn within its ceiling.
      delays.zip(List(100.millis, 200.millis, 250.millis)).foreach((d, c) => assert(d <= c, s"$d"))
      assertEquals(at, delays.scanLeft(Duration.Zero)(_ + _))
      assertEquals(
        results.map(r => (r.outcome, r.attempts)),
        Vector((TaskOutcome.Succeeded("ok"), 4))
      )
      assertEquals(results.head.latency, delays.reduce(_ + _))
      assertEquals(snap.retried, 3L)
    }
  }

  test("retry: only retryable failures are retried; the last failure is the outcome") {
    val policy = RetryPolicy
      .exponential(Attempts(5), NonNegativeDuration.seconds(1), NonNegativeDuration.seconds(1))
      .withRetryable(_.getMessage != "fatal")
    val program = Engine
      .create[IO](settings().withRetry(policy).withErrorPolicy(ErrorPolicy.Skip))
      .flatMap { engine =>
        val handler =
          (i: Int) => IO.raiseError[Int](new RuntimeException(if i == 0 then "x" else "fatal"))
        engine.results(source(2))(handler).compile.toVector.product(engine.snapshot)
      }
    TestControl.executeEmbed(program).map { (results, snap) =>
      assertEquals(results.sortBy(_.task).map(_.attempts), Vector(5, 1))
      assertEquals(snap.retried, 4L)
    }
  }

  test("timeout: the handler is cancelled at the timeout and the task counts as timed out") {
    val program = for
      cancelled <- Ref.of[IO, Int](0)
      engine <- Engine.create[IO](
        settings(_.withTaskTimeout(PositiveDuration.seconds(2))).withErrorPolicy(ErrorPolicy.Skip)
      )
      results <- engine
        .results(source(3))(i =>
          (IO.sleep(if i == 1 then 1.second else 1.minute).as(i)).onCancel(cancelled.update(_ + 1))
        )
        .compile
        .toVector
      n <- cancelled.get
      end <- IO.monotonic
      snap <- engine.snapshot
    yield (results.sortBy(_.task), n, end, snap)
    TestControl.executeEmbed(program).map { (results, cancelled, end, snap) =>
      assertEquals(
        results.map(r => (r.outcome, r.latency)),
        Vector(
          (TaskOutcome.TimedOut(2.seconds), 2.seconds),
          (TaskOutcome.Succeeded(1), 1.second),
          (TaskOutcome.TimedOut(2.seconds), 2.seconds)
        )
      )
      assertEquals((cancelled, end), (2, 2.seconds))
      assertEquals(snap.failed, Map(FailureClass.TimedOut -> 2L))
    }
  }

  test("timeout with retries: each attempt gets the full timeout") {
    val policy =
      RetryPolicy.exponential(Attempts(3), NonNegativeDuration.zero, NonNegativeDuration.zero)
    val program = Engine
      .create[IO](
        settings(_.withTaskTimeout(PositiveDuration.seconds(1)))
          .withRetry(policy)
          .withErrorPolicy(ErrorPolicy.Skip)
      )
      .flatMap(_.results(source(1))(_ => IO.never[Int]).compile.toVector)
    TestControl.executeEmbed(program).map { rs =>
      assertEquals(
        rs.map(r => (r.outcome, r.attempts, r.latency)),
        Vector((TaskOutcome.TimedOut(1.second), 3, 3.seconds))
      )
    }
  }

  test("rate: attempts start exactly at the limit's pace, after the burst") {
    val limit = RateLimit.of(10, burst = 3).fold(e => fail(e.getMessage), identity)
    val program = for
      starts <- Ref.of[IO, Vector[FiniteDuration]](Vector.empty)
      engine <- Engine.create[IO](settings(_.withConcurrency(Concurrency(50))).withRate(limit))
      _ <- engine.run(source(8))(_ => IO.monotonic.flatMap(t => starts.update(_ :+ t)))
      seen <- starts.get
    yield seen.sorted
    TestControl.executeEmbed(program).map { seen =>
      assertEquals(seen, Vector(0, 0, 0, 100, 200, 300, 400, 500).map(_.millis))
    }
  }

  test("stop: no new task starts, in-flight tasks get the grace period, then are cancelled") {
    val durations = Vector(1, 5, 20, 30).map(_.seconds) // tasks 0-3 start at once; more queue up
    val program = for
      engine <- Engine.create[IO](
        settings(
          _.withConcurrency(Concurrency(4)),
          _.withQueueCapacity(Capacity(8)),
          _.withStopGrace(NonNegativeDuration.seconds(10))
        )
      )
      fiber <- engine
        .results(source(1000))(i => IO.sleep(durations.lift(i).getOrElse(50.seconds)).as(i))
        .compile
        .toVector
        .start
      _ <- IO.sleep(2.seconds) >> engine.stop
      results <- fiber.joinWithNever
      end <- IO.monotonic
      snap <- engine.snapshot
    yield (results, end, snap)
    TestControl.executeEmbed(program).map { (results, end, snap) =>
      // Task 0 ended at 1 s and freed a slot for task 4 (50 s); at 2 s the stop; task 1 ends
      // at 5 s; tasks 2, 3 and 4 are cancelled when the grace period ends at 12 s.
      assertEquals(end, 12.seconds)
      val done = results.filter(_.outcome.succeeded).map(_.task).sorted
      assertEquals(done, Vector(0, 1))
      assert(results.drop(2).forall(_.outcome == TaskOutcome.NotStarted), results.toString)
      assertEquals(snap.cancelled, 3L)
      assertEquals(snap.unfinished, snap.taken - 2)
      assertEquals((snap.inFlight, snap.queued), (0L, 0L))
    }
  }

  test("snapshots: live counts of in-flight and queued tasks, and the rate between snapshots") {
    val program = Engine
      .create[IO](settings(_.withConcurrency(Concurrency(2)), _.withQueueCapacity(Capacity(4))))
      .flatMap { engine =>
        val work = engine.run(source(10))(_ => IO.sleep(1.second))
        engine.snapshots(1250.millis).take(2).compile.toVector.parProduct(work).map(_._1)
      }
    TestControl.executeEmbed(program).map { snaps =>
      // Two slots, tasks of 1 s: at 1.25 s two have ended, at 2.5 s four; two are in flight.
      assertEquals(snaps.map(s => (s.succeeded, s.inFlight)), Vector((2L, 2L), (4L, 2L)))
      assertEquals(snaps.map(_.ratePerSecond), Vector(1.6, 1.6))
      // Recent latencies are those of the tasks ended since the snapshot before (1 s each).
      assertEquals(
        snaps.map(s => (s.recentLatency.count, s.latency.count)),
        Vector((2L, 2L), (2L, 4L))
      )
      assertEquals(snaps.map(_.recentLatency.max), Vector(1.second, 1.second))
      assertEquals(snaps.map(_.batches), snaps.map(_.taken)) // Stream.range yields one a chunk
      // Every task taken is ended, in flight or queued; the pool reads ahead a few at most.
      assert(
        snaps.forall(s => s.queued <= 5 && s.taken == s.succeeded + s.inFlight + s.queued),
        snaps.toString
      )
    }
  }

  test("take(3) of the results stops the run: no task keeps running") {
    val program = for
      running <- Ref.of[IO, Int](0)
      engine <- Engine.create[IO](settings(_.withConcurrency(Concurrency(8))))
      rs <- engine
        .results(Source.single(Stream.iterate(0)(_ + 1).covary[IO]))(i =>
          (running.update(_ + 1) >> IO.sleep(1.second)).guarantee(running.update(_ - 1)).as(i)
        )
        .take(3)
        .compile
        .toVector
      left <- running.get
    yield (rs.size, left)
    TestControl.executeEmbed(program).map(r => assertEquals(r, (3, 0)))
  }

  test("settings: a wrong value is a ConfigError that names the setting, never a throw") {
    assertEquals(Concurrency.from(0), Left(ConfigError.NotPositive("concurrency", "0")))
    assertEquals(
      Capacity.from(-1, "queue capacity"),
      Left(ConfigError.NotPositive("queue capacity", "-1"))
    )
    assertEquals(
      PositiveDuration.from(Duration.Zero, "task timeout").left.map(_.getMessage),
      Left("task timeout must be positive, got 0")
    )
    assert(NonNegativeDuration.from(-1.second).isLeft)
    assert(RateLimit.of(0).isLeft && RateLimit.of(Double.NaN).isLeft && RateLimit.of(5, 0).isLeft)
    assertEquals(RateLimit.of(5, 0).left.map(_.getMessage), Left("burst must be positive, got 0"))
    val s = EngineSettings.default
      .withConcurrency(Concurrency(7))
      .withQueueCapacity(Capacity(9))
      .withTaskTimeout(PositiveDuration.seconds(2))
      .withStopGrace(NonNegativeDuration.zero)
    assertEquals((s.limits.concurrency: Int, s.limits.queueCapacity: Int), (7, 9))
    assertEquals(s.taskTimeout.map(d => d: FiniteDuration), Some(2.seconds))
    assertEquals(s.stopGrace: FiniteDuration, Duration.Zero)
  }

  test("runTo: every task's result reaches the sink once, with its class when it failed") {
    final class Refused extends RuntimeException("refused") with Classified:
      def failureClass = "refused"
    val program = for
      engine <- Engine.create[IO](
        settings(_.withConcurrency(Concurrency(4))).withErrorPolicy(ErrorPolicy.Skip)
      )
      seen <- Ref.of[IO, List[TaskResult[Int, Int]]](Nil)
      snap <- engine.runTo(source(50))(i =>
        IO.sleep(i.millis) >> IO.raiseWhen(i % 10 == 3)(new Refused).as(i)
      )(r => seen.update(r :: _))
      results <- seen.get
    yield (results, snap)
    TestControl.executeEmbed(program).map { (results, snap) =>
      assertEquals(results.map(_.task).sorted, List.range(0, 50))
      assertEquals(results.map(_.index).sorted, List.range(0L, 50L))
      assertEquals(results.count(_.outcome.failureClass.contains(FailureClass.Named("refused"))), 5)
      assertEquals(snap.failed, Map(FailureClass.Named("refused") -> 5L))
      assertEquals(snap.succeeded, 45L)
    }
  }

  test(
    "runTo: an error in the sink fails the run with that error as raised (the sink's, not the task's)"
  ) {
    val program = Engine
      .create[IO](settings(_.withConcurrency(Concurrency(2))))
      .flatMap(_.runTo(source(10))(IO.pure)(r => IO.raiseWhen(r.task == 4)(boom)))
      .attempt
    TestControl.executeEmbed(program).map(r => assertEquals(r.map(_ => ()), Left(boom)))
  }

  test("stopNow: the grace period ends at once; tasks in flight are cancelled and counted") {
    val program = for
      engine <- Engine.create[IO](
        settings(_.withConcurrency(Concurrency(3)), _.withStopGrace(NonNegativeDuration.hours(1)))
      )
      work = engine.run(source(100))(_ => IO.sleep(10.seconds))
      snap <- (IO.sleep(1.second) >> engine.stop >> IO.sleep(1.second) >> engine.stopNow).background
        .surround(work)
      end <- IO.monotonic
    yield (snap, end)
    TestControl.executeEmbed(program).map { (snap, end) =>
      assertEquals(end, 2.seconds)
      assertEquals(snap.cancelled, 3L)
      assertEquals(snap.succeeded, 0L)
    }
  }
