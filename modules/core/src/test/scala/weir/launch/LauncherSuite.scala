package weir.launch

import cats.effect.{Deferred, IO, Ref}
import cats.effect.testkit.TestControl
import cats.syntax.all.*
import fs2.Stream
import munit.CatsEffectSuite
import scala.concurrent.duration.*

class LauncherSuite extends CatsEffectSuite:

  private def settings(c: Int) = LaunchSettings.default.withConcurrency(c)

  /** A handler that tracks how many calls overlap and which inputs it saw. */
  private final class Probe(seen: Ref[IO, Vector[Long]], now: Ref[IO, Int], high: Ref[IO, Int]):
    def handle(work: IO[Unit])(i: Long): IO[Unit] =
      now.updateAndGet(_ + 1).flatMap(n => high.update(_.max(n))) >> work >> seen.update(
        _ :+ i
      ) >> now.update(_ - 1)
    def inputs: IO[Vector[Long]] = seen.get
    def peak: IO[Int] = high.get

  private def probe =
    (Ref.of[IO, Vector[Long]](Vector.empty), Ref.of[IO, Int](0), Ref.of[IO, Int](0))
      .mapN(Probe(_, _, _))

  test("count: every index exactly once, never more than the concurrency in flight") {
    (1 to 5).toList.traverse_ { round =>
      probe.flatMap { p =>
        Launcher.count[IO](2000, settings(7 * round))(s => p.handle(IO.cede)(s.input)).flatMap {
          stats =>
            (p.inputs, p.peak).mapN { (seen, peak) =>
              assertEquals(seen.sorted, Vector.range(0L, 2000L))
              assert(peak <= 7 * round, s"peak $peak > ${7 * round}")
              assert(stats.peakInFlight <= 7 * round)
              assertEquals(
                (stats.launched, stats.succeeded, stats.failed, stats.stopped),
                (2000L, 2000L, 0L, false)
              )
            }
        }
      }
    }
  }

  test("count: the bound is reached when handlers are slow") {
    probe.flatMap { p =>
      Launcher.count[IO](200, settings(50))(s => p.handle(IO.sleep(5.millis))(s.input)).flatMap {
        stats =>
          p.peak.map(peak => assertEquals((peak, stats.peakInFlight), (50, 50)))
      }
    }
  }

  test("count: zero inputs is an empty launch") {
    Launcher
      .count[IO](0, settings(3))(_ => IO.raiseError(new Exception("never")))
      .map(s => assertEquals(s.launched, 0L))
  }

  test("stream: every element exactly once, bound kept") {
    probe.flatMap { p =>
      val inputs = Stream.range(0L, 3000L).covary[IO]
      Launcher.stream[IO, Long](inputs, settings(16))(s => p.handle(IO.cede)(s.input)).flatMap {
        stats =>
          (p.inputs, p.peak).mapN { (seen, peak) =>
            assertEquals(seen.sorted, Vector.range(0L, 3000L))
            assert(peak <= 16)
            assertEquals(stats.launched, 3000L)
          }
      }
    }
  }

  test("errors are counted and do not stop the launch") {
    Launcher
      .count[IO](100, settings(4))(s => IO.raiseWhen(s.input % 10 == 0)(new Exception("boom")))
      .map { stats =>
        assertEquals((stats.succeeded, stats.failed), (90L, 10L))
      }
  }

  test("an error in the input stream fails the launch") {
    val inputs =
      Stream.range(0, 10).covary[IO] ++ Stream.raiseError[IO](new IllegalStateException("bad file"))
    Launcher.stream[IO, Int](inputs, settings(3))(_ => IO.unit).attempt.map(r => assert(r.isLeft))
  }

  test("stop: no new input after the signal, the ones in flight finish") {
    TestControl.executeEmbed {
      Deferred[IO, Unit].flatMap { stop =>
        val launch = Launcher.count[IO](1000, settings(10), Some(stop))(_ => IO.sleep(1.second))
        (launch, IO.sleep(2500.millis) >> stop.complete(())).parTupled.map { (stats, _) =>
          assertEquals((stats.launched, stats.succeeded, stats.stopped), (30L, 30L, true))
          assertEquals(stats.elapsed, 3.seconds)
        }
      }
    }
  }

  test("cancelling the launch cancels the handlers in flight") {
    Ref.of[IO, Int](0).flatMap { cancelled =>
      val launch =
        Launcher.count[IO](100, settings(5))(_ => IO.never[Unit].onCancel(cancelled.update(_ + 1)))
      launch.timeout(100.millis).attempt >> cancelled.get.map(n => assertEquals(n, 5))
    }
  }

  test("rate: effect i is due at i / rate (virtual time)") {
    TestControl.executeEmbed {
      Ref
        .of[IO, Vector[(Long, FiniteDuration, FiniteDuration)]](Vector.empty)
        .flatMap { log =>
          val launch = Launcher.count[IO](10, settings(100).withRate(4.0)) { s =>
            IO.monotonic.flatMap(now => log.update(_ :+ (s.input, s.scheduled, now)))
          }
          launch.flatMap(stats => log.get.map(entries => (stats, entries)))
        }
        .map { (stats, entries) =>
          assertEquals(
            entries.sortBy(_._1).map(e => (e._2, e._3)),
            Vector.tabulate(10)(i => ((i * 250).millis, (i * 250).millis))
          )
          assertEquals(stats.elapsed, 2250.millis)
        }
    }
  }

  test("rate: when the bound holds a request back, its scheduled time stays the due time") {
    TestControl.executeEmbed {
      Ref
        .of[IO, Vector[(FiniteDuration, FiniteDuration)]](Vector.empty)
        .flatMap { log =>
          // 2 per second but each takes 1 s and only one may run: starts fall behind schedule.
          Launcher
            .count[IO](4, settings(1).withRate(2.0))(s =>
              IO.monotonic.flatMap(start => log.update(_ :+ (s.scheduled, start))) >> IO
                .sleep(1.second)
            )
            .flatMap(_ => log.get)
        }
        .map { entries =>
          assertEquals(
            entries,
            Vector(
              0.millis -> 0.millis,
              500.millis -> 1.second,
              1.second -> 2.seconds,
              1500.millis -> 3.seconds
            )
          )
        }
    }
  }

  test("settings reject a non-positive concurrency or rate") {
    assert(LaunchSettings.of(0).isLeft)
    assert(LaunchSettings.of(3, Some(0.0)).isLeft)
    assert(LaunchSettings.of(3, Some(Double.NaN)).isLeft)
    assert(LaunchSettings.of(3, Some(10.0)).isRight)
  }
