package weir.strategy

import cats.effect.{IO, Ref}
import cats.effect.testkit.TestControl
import cats.syntax.all.*
import fs2.Stream
import munit.CatsEffectSuite
import scala.util.Random
import scala.concurrent.duration.*
import weir.{Capacity, Concurrency, Limits, Source}

/** The default strategy's guarantees: exactly once, completion, errors, cancellation. */
class WeirSuite extends CatsEffectSuite:
  override def munitIOTimeout: Duration = 3.minutes

  // Random shapes from a fixed seed: partitions' sizes, chunk size, concurrency, capacity.
  private val shapes: List[(List[Int], Int, Int, Int)] =
    val random = new Random(4)
    List.fill(60)(
      (
        List.fill(1 + random.nextInt(4))(random.nextInt(300)),
        1 + random.nextInt(120),
        1 + random.nextInt(50),
        1 + random.nextInt(80)
      )
    )

  private def sourceOf(sizes: List[Int], chunk: Int): Source[IO, Int] =
    val offsets = sizes.scanLeft(0)(_ + _)
    val streams = sizes
      .zip(offsets)
      .map((size, from) => Stream.range(from, from + size).chunkLimit(chunk).unchunks.covary[IO])
    Source.fromPartitions(streams).fold(throw _, identity)

  test("a worker's next share: fair after slow tasks, about 100 us worth after fast ones") {
    assertEquals(Weir.wish(10.millis, 2), 0)
    assertEquals(Weir.wish(60.micros, 3), 0)
    assertEquals(Weir.wish(50.micros, 50), 100)
    assertEquals(Weir.wish(Duration.Zero, 10), 100000)
  }

  test(
    "a worker sizes its next share by what Tasks.timedShare reports, not the share's wall time"
  ) {
    // Each share takes 1 s of virtual time per task; the tasks report 1 ns a task (as the engine
    // does for a share whose time was its fiber's waits) or 1 ms a task.
    def shares(reported: FiniteDuration): IO[List[Int]] =
      TestControl.executeEmbed(Ref.of[IO, List[Int]](Nil).flatMap { sizes =>
        val tasks = new Tasks[IO, Int]:
          def one(task: Int): IO[Unit] = share(task :: Nil)
          def share(tasks: List[Int]): IO[Unit] =
            sizes.update(tasks.size :: _) >> IO.sleep(tasks.size.seconds)
          override def timedShare(tasks: List[Int])(using cats.effect.kernel.Clock[IO]) =
            share(tasks).as(reported * tasks.size.toLong)
        val source = Source.single(Stream.range(0, 2000).covary[IO].chunkN(50).unchunks)
        Weir.runTasks(source, Limits(Concurrency(4), Capacity(64)))(tasks) >> sizes.get
      })
    (shares(1.nano), shares(1.milli)).mapN { (fast, slow) =>
      assertEquals((fast.sum, slow.sum), (2000, 2000))
      assert(fast.max > 16, s"fast tasks: greedy shares above the fair 64 / 4, got ${fast.max}")
      assert(slow.max <= 16, s"slow tasks: fair shares of at most 64 / 4, got ${slow.max}")
    }
  }

  test("every task is handled exactly once and the run completes") {
    // On the real multi-threaded runtime, so races between workers and producers happen.
    shapes.traverse_ { (sizes, chunk, concurrency, capacity) =>
      Ref.of[IO, Vector[Int]](Vector.empty).flatMap { seen =>
        val limits = Limits.of(concurrency, capacity).fold(e => fail(e.getMessage), identity)
        Weir.run(sourceOf(sizes, chunk), limits)(task => IO.cede >> seen.update(_ :+ task)) >>
          seen.get.map(handled => assertEquals(handled.sorted, (0 until sizes.sum).toVector))
      }
    }
  }

  test("slow handlers: all `concurrency` handlers are busy at once") {
    val program = Ref.of[IO, (Int, Int)]((0, 0)).flatMap { counts =>
      val handler = (_: Int) =>
        counts.update((now, peak) => (now + 1, peak.max(now + 1))) >> IO.sleep(100.millis) >>
          counts.update((now, peak) => (now - 1, peak))
      Weir.run(sourceOf(List(500, 500), 100), Limits.default)(handler) >> counts.get.map(_._2)
    }
    TestControl.executeEmbed(program).map(peak => assertEquals(peak, 100))
  }

  // The 51st task to start fails, not a given task: a task may wait in a worker's share behind one
  // that never ends (how the tasks are shared depends on the schedule), and it would never start.
  test("a failing handler fails the run and cancels the handlers in flight") {
    val boom = new RuntimeException("boom")
    val program = (Ref.of[IO, Int](0), Ref.of[IO, Int](0)).tupled.flatMap { (cancelled, started) =>
      val handler = (_: Int) =>
        started.updateAndGet(_ + 1).flatMap { n =>
          if n == 51 then IO.sleep(10.millis) >> IO.raiseError(boom)
          else IO.never[Unit].onCancel(cancelled.update(_ + 1))
        }
      Weir.run(sourceOf(List(1000), 100), Limits.default)(handler).attempt.product(cancelled.get)
    }
    TestControl.executeEmbed(program).map { (result, cancelled) =>
      assertEquals(result, Left(boom))
      assertEquals(cancelled, 99)
    }
  }

  test("a failing producer fails the run") {
    val boom = new RuntimeException("producer")
    val source = Source.partitioned(Stream.range(0, 10).covary[IO], Stream.raiseError[IO](boom))
    Weir.run(source, Limits.default)(_ => IO.never).attempt.map(r => assertEquals(r, Left(boom)))
  }

  test("cancellation stops producers and handlers and leaves no fiber behind") {
    val program = (Ref.of[IO, Int](0), Ref.of[IO, Int](0)).tupled.flatMap { (started, stopped) =>
      val endless = Stream.iterate(0)(_ + 1).covary[IO].onFinalize(stopped.update(_ + 1))
      val handler =
        (_: Int) => started.update(_ + 1) >> IO.never[Unit].onCancel(stopped.update(_ + 1))
      Weir
        .run(Source.partitioned(endless, endless), Limits.default)(handler)
        .timeoutTo(1.second, IO.unit) >>
        (started.get, stopped.get).tupled
    }
    TestControl.executeEmbed(program).map { (started, stopped) =>
      assertEquals(started, 100)
      assertEquals(stopped, 100 + 2) // every handler and both producers
    }
  }
