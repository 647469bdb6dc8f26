package weir.engine

import cats.effect.{IO, Ref}
import cats.effect.testkit.TestControl
import cats.syntax.all.*
import fs2.Stream
import munit.CatsEffectSuite
import scala.concurrent.duration.*
import weir.{Attempts, Concurrency, NonNegativeDuration, PositiveDuration, Source}

/** The README's library example, compiled and run as it stands there (with a stand-in `fetch` whose
  * first call for one feed in five fails, and a short feed list), so the README cannot drift from
  * the API.
  */
class ReadmeExampleSuite extends CatsEffectSuite:

  test("the README's engine example runs: results, retries, skips and live statistics") {
    Ref.of[IO, Map[String, Int]](Map.empty).flatMap { calls =>
      def fetch(url: String): IO[Int] =
        calls.modify(m => (m.updated(url, m.getOrElse(url, 0) + 1), m.getOrElse(url, 0))).flatMap {
          earlier => IO.raiseWhen(earlier == 0 && url.last == '4')(new Exception(url)).as(earlier)
        }
      val staleFeeds: Stream[IO, String] = Stream.range(0, 100).map(i => s"feed-$i").covary[IO]

      // ---- README example starts
      val retry = RetryPolicy.exponential(
        maxAttempts = Attempts(4),
        initial = NonNegativeDuration.millis(1),
        max = NonNegativeDuration.millis(5)
      )
      val settings = RateLimit
        .of(perSecond = 5000, burst = 50)
        .map(rate =>
          EngineSettings.default
            .withConcurrency(Concurrency(64))
            .withTaskTimeout(PositiveDuration.seconds(10))
            .withRetry(retry)
            .withRate(rate)
            .withErrorPolicy(ErrorPolicy.Skip)
        )

      val run: IO[Snapshot] = IO
        .fromEither(settings)
        .flatMap(Engine.create[IO])
        .flatMap { engine =>
          val live = engine
            .snapshots(1.second)
            .evalMap(s =>
              IO.println(f"${s.ended} done, ${s.ratePerSecond}%.0f/s, p99 ${s.latency.p99}")
            )
          engine
            .results(Source.single(staleFeeds))(fetch)
            .evalMap { r =>
              r.outcome match
                case TaskOutcome.Succeeded(_) => IO.unit // keep the value
                case failed => IO.println(s"${r.task}: $failed after ${r.attempts} attempts")
            }
            .concurrently(live)
            .compile
            .drain >> engine.snapshot
        }
      // ---- README example ends

      run.map { snap =>
        // The first call of feed-4, feed-14, ... fails; each succeeds on its retry.
        assertEquals((snap.succeeded, snap.failedTotal, snap.retried), (100L, 0L, 10L))
      }
    }
  }

  test("the README's run-handle example runs: a run as a resource, its live view and its end") {
    Ref.of[IO, Int](0).flatMap { fetched =>
      def fetch(url: String): IO[Int] =
        IO.raiseWhen(url.isEmpty)(new Exception("no URL")) >> fetched.updateAndGet(_ + 1)
      val staleFeeds: Stream[IO, String] = Stream.range(0, 100).map(i => s"feed-$i").covary[IO]

      // ---- README run example starts
      val settings = EngineSettings.default.withErrorPolicy(ErrorPolicy.Skip)

      val job: IO[(RunOutcome, Snapshot)] =
        Engine.start(settings, Source.single(staleFeeds))(fetch(_).void).use { run =>
          val live = run.snapshots(1.second).evalMap(s => IO.println(s"${s.ended} done"))
          val shutdown = IO.sleep(1.hour) >> run.stop // e.g. on SIGTERM; run.stopNow cuts off
          (live.compile.drain &> shutdown).background.surround(run.join).flatMap { last =>
            run.outcome.map(_ -> last)
          }
        }
      // ---- README run example ends

      job.map { (outcome, last) =>
        assertEquals(outcome, RunOutcome.Completed)
        assertEquals((last.succeeded, last.failedTotal), (100L, 0L))
      }
    }
  }

  test("the README's recorder example: the peak in flight on each tick, in a Timeline") {
    // A hundred feeds, each fetched in 1.5 s, all at once (the default concurrency is 100).
    def fetch(url: String): IO[Int] = IO.sleep(1500.millis).as(url.length)
    val staleFeeds: Stream[IO, String] = Stream.range(0, 100).map(i => s"feed-$i").covary[IO]

    // ---- README example starts
    final case class Peak(inFlight: Long)
    given cats.kernel.Monoid[Peak] with
      def empty = Peak(0)
      def combine(a: Peak, b: Peak) = Peak(a.inFlight max b.inFlight)

    // The most tasks in flight seen on a tick, second by second.
    val peaks: IO[Timeline[Peak]] =
      IO.ref(Timeline.start[Peak](1.second)).flatMap { timeline =>
        val recorder = Recorder.ticks[IO](s => timeline.update(_.add(s.elapsed, Peak(s.inFlight))))
        Engine
          .startRecorded(EngineSettings.default, Source.single(staleFeeds), recorder)(fetch(_).void)
          .use(_.join) >> timeline.get
      }
    // ---- README example ends

    // Ticks at 1 s (all 100 in flight) and at the end, 1.5 s (none): both in the second interval.
    TestControl.executeEmbed(peaks).map(t => assertEquals(t.intervals, Vector(Peak(0), Peak(100))))
  }
