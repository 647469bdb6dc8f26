package weir.http

import cats.effect.{IO, Ref, Resource}
import cats.effect.std.Semaphore
import cats.effect.testkit.TestControl
import munit.CatsEffectSuite
import scala.concurrent.duration.*
import weir.engine.AdaptiveConcurrency
import weir.{Concurrency, ConfigError, NonNegativeDuration, PositiveDuration}

/** The load's timing under virtual time: requests go to a [[Requester]] that only sleeps (the
  * sockets are [[LoadSuite]]'s), so every instant below is exact.
  */
class LoadTimingSuite extends CatsEffectSuite:

  private def ok[A](e: Either[String | ConfigError, A]): A = e.fold(
    {
      case msg: String    => fail(msg)
      case e: ConfigError => fail(e.getMessage)
    },
    identity
  )

  private val template = ok(UrlTemplate.parse("http://127.0.0.1:1/{id}"))
  private def load(n: Option[Long], c: Int): LoadConfig =
    ok(
      Concurrency
        .from(c)
        .flatMap(LoadConfig(LoadConfig.Source.Template(template, n)).withConcurrency)
    )

  /** Runs `config` against `answer` (each request's time and status), recording request starts. */
  private def run(config: LoadConfig, answer: Target => IO[Int]) =
    for
      starts <- Ref.of[IO, List[(Long, FiniteDuration)]](Nil)
      requester = new Requester[IO]:
        def send(target: Target, spec: RequestSpec) =
          IO.monotonic.flatMap(now =>
            starts.update((target.path.drop(1).toLong, now) :: _)
          ) >> answer(target).attempt
      lr <- LoadRun.create[IO](config)
      report <- lr.runWith(_ => Resource.pure(requester))
      seen <- starts.get
    yield (report, seen.reverse)

  test("the open model starts request i at i / rate, and counts latency from then") {
    // 50 requests at 100 a second, 10 at once, each taking 1 ms.
    val config = ok(load(Some(50L), 10).withRate(100))
    TestControl.executeEmbed(run(config, _ => IO.sleep(1.milli).as(200))).map { (r, starts) =>
      assertEquals(starts.sortBy(_._1).map(_._2), List.tabulate(50)(i => (i * 10).millis))
      assertEquals(r.statuses, Map(200 -> 50L))
      assertEquals((r.latency.p50, r.latency.max), (1000000L, 1000000L)) // 1 ms, in ns
    }
  }

  test("under a rate the live view counts only requests sent, and times them from the send") {
    // 30 requests at 10 a second, up to 100 at once, each taking 50 ms: request i is sent at
    // i * 100 ms. Seen every 1.02 s: request 10 (or 20) in flight, sent 20 (40) ms before, and
    // every request ended since the previous look took 50 ms. Before requests waited for their
    // turn outside the engine, all 30 were taken at once: 20 "in flight" at 1.02 s, timed from 0.
    val config = ok(load(Some(30L), 100).withRate(10))
    val program = LoadRun.create[IO](config).flatMap { lr =>
      val views = lr
        .progress(1020.millis)
        .collect { case LoadRun.Progress.Loading(s) => s }
        .take(2)
        .compile
        .toVector
      val requester = new Requester[IO]:
        def send(target: Target, spec: RequestSpec) = IO.sleep(50.millis).as(200).attempt
      lr.runWith(_ => Resource.pure(requester)).both(views)
    }
    TestControl.executeEmbed(program).map { (report, views) =>
      assertEquals(
        views.map(s => (s.elapsed.toMillis, s.inFlight, s.ended)),
        Vector((1020L, 1L, 10L), (2040L, 1L, 20L))
      )
      views.foreach { s =>
        val l = s.recentLatency
        assertEquals(l.count, 10L)
        // The engine's histogram is within 1.6 % (its buckets); 50 ms is the only value.
        assert(l.p50 >= 49.millis && l.max <= 51.millis, s"$l")
      }
      assertEquals((report.statuses, report.peakInFlight), (Map(200 -> 30L), 1))
    }
  }

  test("the open model counts a late start in the latency (no coordinated omission)") {
    // One slot, requests due every 10 ms, each taking 25 ms: request i starts at 25 i.
    val config = ok(load(Some(4L), 1).withRate(100))
    TestControl.executeEmbed(run(config, _ => IO.sleep(25.millis).as(200))).map { (r, starts) =>
      assertEquals(starts.map(_._2), List(0, 25, 50, 75).map(_.millis))
      // Latency from the due time: 25, 40, 55, 70 ms (HdrHistogram keeps 3 digits).
      assertEqualsDouble(r.latency.max.toDouble, 70e6, 70e3)
    }
  }

  test("--duration stops launching at its instant; requests in flight finish") {
    // 5 slots, 100 ms requests: 10 rounds have started by 0.95 s, the last ends at 1 s.
    val config = load(None, 5).withDuration(PositiveDuration.millis(950))
    TestControl.executeEmbed(run(config, _ => IO.sleep(100.millis).as(200))).map { (r, _) =>
      assertEquals((r.launched, r.responses, r.unfinished), (50L, 50L, 0L))
      assertEquals((r.ending, r.elapsed), (Ending.DurationReached, 1.second))
    }
  }

  test("a stop with a short grace period cuts the requests in flight off at its end") {
    val config =
      load(None, 4)
        .withDuration(PositiveDuration.seconds(1))
        .withGrace(NonNegativeDuration.millis(200))
    TestControl.executeEmbed(run(config, _ => IO.sleep(10.seconds).as(200))).map { (r, _) =>
      assertEquals((r.launched, r.unfinished, r.finished), (4L, 4L, 0L))
      assertEquals(r.elapsed, 1200.millis)
    }
  }

  test("--retries: each failed attempt is tried again after its backoff, up to the limit") {
    // Every attempt at an odd id fails with a reset; even ids succeed. Two retries each.
    val config = ok(load(Some(10L), 10).withRetries(2))
    val answer = (t: Target) =>
      if t.path.drop(1).toLong % 2 == 1 then
        IO.raiseError(new java.io.IOException("Connection reset by peer"))
      else IO.sleep(1.milli).as(200)
    TestControl.executeEmbed(run(config, answer)).map { (r, starts) =>
      assertEquals(r.retries, 10L) // 5 failing requests, 2 retries each
      assertEquals(r.statuses, Map(200 -> 5L))
      assertEquals(r.errors, Map(ErrorClass.Reset -> 5L))
      assertEquals(starts.count(_._1 % 2 == 1), 15)
    }
  }

  test("5xx answers are retried; 4xx are not") {
    val config = ok(load(Some(2L), 2).withRetries(3))
    val answer = (t: Target) => IO.pure(if t.path == "/0" then 503 else 404)
    TestControl.executeEmbed(run(config, answer)).map { (r, starts) =>
      assertEquals(r.statuses, Map(503 -> 1L, 404 -> 1L))
      assertEquals((r.retries, starts.size), (3L, 5))
      assertEquals(r.failures, 2L)
    }
  }

  test("--concurrency auto finds a server's capacity: full rate, little queueing") {
    // The server serves 100 at once for 50 ms each (2 000 a second at most); the rest queue.
    val program = Semaphore[IO](100).flatMap { places =>
      val auto = ok(AdaptiveConcurrency.of(Concurrency(1), Concurrency(1000)))
      val config =
        ok(load(None, 1).withAdaptiveConcurrency(auto)).withDuration(PositiveDuration.seconds(30))
      run(config, _ => places.permit.surround(IO.sleep(50.millis)).as(200))
    }
    TestControl.executeEmbed(program).map { (r, _) =>
      assert(r.throughput >= 0.9 * 2000, s"${r.throughput} req/s")
      assert(r.concurrency >= 80 && r.concurrency <= 140, s"ended at ${r.concurrency}")
      assertEquals(r.adaptive, Some((1, 1000)))
    }
  }

  /** The port the warm-up's requests go to (weir's own server, here only a port: the requester
    * answers); the load's go to port 1.
    */
  private val OwnPort = 2

  /** What [[warmed]] saw: the report, what ran beside the load returned, the ports of the requests
    * in the order they started, when the run returned, and whether the load said it was warming up
    * then.
    */
  private final case class Warmed[A](
      report: LoadReport,
      meanwhile: A,
      ports: Vector[Int],
      end: FiniteDuration,
      warmingAfter: Boolean
  )

  /** Runs `lr` with its warm-up, each request answered 200 after `warmTime` (the warm-up's) or
    * `loadTime` (the load's), with `meanwhile` beside it.
    */
  private def warmed[A](lr: LoadRun[IO], warmTime: FiniteDuration, loadTime: FiniteDuration)(
      meanwhile: IO[A]
  ): IO[Warmed[A]] =
    for
      ports <- Ref.of[IO, Vector[Int]](Vector.empty)
      requester = new Requester[IO]:
        def send(target: Target, spec: RequestSpec) =
          val time = if target.port == OwnPort then warmTime else loadTime
          ports.update(_ :+ target.port) >> IO.sleep(time).as(200).attempt
      both <- lr
        .runWith(_ => Resource.pure(requester), Resource.pure(WarmUp.OwnServer(OwnPort)))
        .both(meanwhile)
      end <- IO.monotonic
      seen <- ports.get
      warming <- lr.warmingUp
    yield Warmed(both._1, both._2, seen, end, warming)

  test("a stop during the warm-up cancels it at once, and nothing is launched") {
    // The warm-up: 500 requests (one round), 10 at once, 1 s each; the stop comes at 2.5 s.
    val config = ok(load(Some(100L), 10).withWarmUp(WarmUp.FirstRound))
    val program = LoadRun.create[IO](config).flatMap { lr =>
      warmed(lr, 1.second, 1.milli)(
        IO.sleep(2500.millis) >> lr.warmingUp <* lr.stop(Ending.Interrupted)
      )
    }
    TestControl.executeEmbed(program).map { w =>
      assertEquals(w.ports, Vector.fill(30)(OwnPort)) // 10 at 0, 1 and 2 s; none to the target
      assertEquals((w.report.launched, w.report.ending), (0L, Ending.Interrupted))
      assertEquals((w.report.warmUp, w.report.elapsed), (None, Duration.Zero))
      assertEquals(w.end, 2500.millis) // not a moment of the warm-up's own grace period
      assertEquals((w.meanwhile, w.warmingAfter), (true, false))
    }
  }

  test("a stop before the load begins skips the warm-up and launches nothing") {
    val config = ok(load(Some(100L), 10).withWarmUp(1000))
    val program = LoadRun.create[IO](config).flatMap { lr =>
      lr.stop(Ending.Interrupted) >> warmed(lr, 1.second, 1.milli)(IO.unit)
    }
    TestControl.executeEmbed(program).map { w =>
      assertEquals(w.ports, Vector.empty)
      assertEquals(
        (w.report.launched, w.report.ending, w.report.warmUp),
        (0L, Ending.Interrupted, None)
      )
    }
  }

  test("the live view's progress: the warm-up, then the load's snapshots from its own clock") {
    // The warm-up: 20 requests, 10 at once, 1.25 s each, so it ends at 2.5 s; then the load: 20
    // requests, 10 at once, 1.2 s each, from 2.5 s to 4.9 s. The view ticks each second.
    val config = ok(load(Some(20L), 10).withWarmUp(20))
    val program = LoadRun.create[IO](config).flatMap { lr =>
      val view = lr.progress(1.second).map {
        case LoadRun.Progress.WarmingUp  => None
        case LoadRun.Progress.Loading(s) => Some((s.elapsed, s.ended))
      }
      // Pulled for 6 s: after the load's end too.
      warmed(lr, 1250.millis, 1200.millis)(view.interruptAfter(6.seconds).compile.toVector)
    }
    TestControl.executeEmbed(program).map { w =>
      assertEquals(w.report.warmUp, Some(WarmUp(20, 2500.millis)))
      assertEquals((w.report.statuses, w.report.elapsed), (Map(200 -> 20L), 2400.millis))
      // Warming at 1 and 2 s; the load's clock starts at 2.5 s: 0 ended at 3.5 s, 10 at 4.5 s, and
      // at 5.5 s, after its end at 4.9 s, all 20.
      assertEquals(
        w.meanwhile,
        Vector(None, None, Some((1.second, 0L)), Some((2.seconds, 10L)), Some((3.seconds, 20L)))
      )
      assertEquals(w.end, 6.seconds) // the view's 6 s: the load itself ended at 4.9 s
    }
  }

  test(
    "a warm-up above WarmUp.FirstRound runs in two rounds: first at 100 at most, then the rest"
  ) {
    // 600 warm-up requests at c = 200, 1 ms each: 500 at 100 at once (5 ms), then 100 at once
    // (1 ms); then the load's 100 requests, all at once.
    val config = ok(load(Some(100L), 200).withWarmUp(600))
    val program = LoadRun.create[IO](config).flatMap(lr => warmed(lr, 1.milli, 1.milli)(IO.unit))
    TestControl.executeEmbed(program).map { w =>
      assertEquals(w.report.warmUp, Some(WarmUp(600, 6.millis)))
      // The load's requests go to the template's port, 1.
      assertEquals(w.ports, Vector.fill(600)(OwnPort) ++ Vector.fill(100)(1))
      assertEquals((w.report.statuses, w.report.elapsed), (Map(200 -> 100L), 1.milli))
    }
  }
