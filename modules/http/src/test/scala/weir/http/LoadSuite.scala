package weir.http

import cats.effect.{IO, Resource}
import cats.syntax.all.*
import java.util.concurrent.atomic.{AtomicInteger, AtomicIntegerArray}
import munit.CatsEffectSuite
import scala.concurrent.duration.*
import scala.jdk.CollectionConverters.*
import weir.{Capacity, Concurrency, ConfigError, NonNegativeDuration, PositiveDuration}

/** `weir load` against a real `weir serve` on an ephemeral loopback port. Assertions count what the
  * server saw and what the report says; none depends on how long anything took.
  */
class LoadSuite extends CatsEffectSuite:

  override def munitIOTimeout: Duration = 60.seconds

  private def ok[A](e: Either[String | ConfigError, A]): A = e.fold(
    {
      case msg: String    => fail(msg)
      case e: ConfigError => fail(e.getMessage)
    },
    identity
  )

  private def server(config: ServerConfig): Resource[IO, DelayServer] =
    DelayServer.resource[IO](ok(config.withHost("127.0.0.1").withPort(0).flatMap(_.withThreads(1))))

  private def template(server: DelayServer) =
    ok(UrlTemplate.parse(s"http://127.0.0.1:${server.port}/{id}"))

  private def load(server: DelayServer, n: Option[Long], c: Int): LoadConfig =
    ok(
      Concurrency
        .from(c)
        .flatMap(LoadConfig(LoadConfig.Source.Template(template(server), n)).withConcurrency)
        .flatMap(_.withIoThreads(1))
    )

  private def load(server: DelayServer, n: Long, c: Int): LoadConfig = load(server, Some(n), c)

  private def run(config: LoadConfig): IO[LoadReport] = LoadRun.create[IO](config).flatMap(_.run)

  private def assertAddsUp(r: LoadReport): Unit =
    assertEquals(r.responses + r.errorCount + r.unfinished, r.launched)
    assertEquals(r.latency.count, r.responses)

  private def urlFile(lines: Seq[String]): Resource[IO, java.nio.file.Path] =
    val write = IO.blocking {
      val file = java.nio.file.Files.createTempFile("weir-urls", ".txt")
      java.nio.file.Files.write(file, java.util.Arrays.asList(lines*))
    }
    Resource.make(write)(file => IO.blocking(java.nio.file.Files.deleteIfExists(file)).void)

  /** A server answering after `delay` and a future completed when its `n`-th request arrives. */
  private def announcing(
      n: Int,
      delay: Delay
  ): (ServerConfig, java.util.concurrent.CompletableFuture[Unit]) =
    val arrived = new AtomicInteger
    val nth = new java.util.concurrent.CompletableFuture[Unit]()
    val config = ServerConfig.default
      .withDelay(delay)
      .withListener(_ => if arrived.incrementAndGet() == n then nth.complete(()): Unit)
    (config, nth)

  test("every id is requested exactly once and the concurrency bound holds") {
    val n = 3000
    val hits = new AtomicIntegerArray(n)
    val config = ServerConfig.default
      .withDelay(Delay.Uniform(5.millis, 25.millis))
      .withListener(k => hits.incrementAndGet(k.toInt): Unit)
    server(config).use { s =>
      run(load(s, n, 64)).flatMap { r =>
        s.stats[IO].map { st =>
          assertEquals((0 until n).filter(hits.get(_) != 1).toList, Nil)
          assertEquals(st.peakInFlight, 64, "the server saw more (or fewer) requests at once")
          assertEquals(st.peakConnections, 64)
          assertEquals(r.statuses, Map(200 -> n.toLong))
          assertEquals((r.launched, r.peakInFlight, r.ending), (n.toLong, 64, Ending.Completed))
          assertEquals((r.retries, r.concurrency), (0L, 64))
          assertAddsUp(r)
        }
      }
    }
  }

  test("error classes are counted right under injected faults; 500s count in the error rate") {
    val n = 2000
    val faults = ok(Faults.of(0.1, 0.05, 0.02))
    val expected = (0 until n).groupMapReduce(i => faults.of(7, i.toLong))(_ => 1L)(_ + _)
    server(ServerConfig.default.withDelay(Delay.Fixed(1.milli)).withSeed(7).withFaults(faults))
      .use { s =>
        // Stalls never answer; a busy machine held 1 ms answers past 300 ms once (191 500s of 193).
        run(load(s, n, 50).withTimeout(PositiveDuration.seconds(2))).map { r =>
          assertEquals(r.statuses.getOrElse(500, 0L), expected(Faults.Fault.Error))
          assertEquals(r.statuses.getOrElse(200, 0L), expected(Faults.Fault.NoFault))
          assertEquals(r.errors.getOrElse(ErrorClass.Reset, 0L), expected(Faults.Fault.Drop))
          assertEquals(r.errors.getOrElse(ErrorClass.Timeout, 0L), expected(Faults.Fault.Stall))
          assertEquals(r.errors.keySet, Set(ErrorClass.Reset, ErrorClass.Timeout))
          assertEquals(r.failures, n - expected(Faults.Fault.NoFault))
          assertEqualsDouble(r.errorRate, (n - expected(Faults.Fault.NoFault)).toDouble / n, 1e-9)
          assert(r.samples.contains(ErrorClass.Timeout), r.samples.toString)
          assertAddsUp(r)
        }
      }
  }

  test("--retries: failed attempts are tried again and most requests end answered") {
    // 10 % of first attempts get a 500 and 5 % a reset; a retry has its own id, so its own fate.
    val faults = ok(Faults.of(0.1, 0.05, 0))
    val n = 1000
    val firstFails = (0 until n).count(i => faults.of(3, i.toLong) != Faults.Fault.NoFault)
    server(ServerConfig.default.withDelay(Delay.Fixed(1.milli)).withSeed(3).withFaults(faults))
      .use { s =>
        // The server keys a path without a number by arrival: every attempt meets a fresh draw.
        val root = ok(UrlTemplate.parse(s"http://127.0.0.1:${s.port}/"))
        val config = ok(
          LoadConfig(LoadConfig.Source.Template(root, Some(n.toLong)))
            .withConcurrency(Concurrency(20))
            .flatMap(_.withIoThreads(1))
            .flatMap(_.withRetries(5))
        )
        (run(config), s.stats[IO]).tupled.flatMap((r, _) => s.stats[IO].map(st => (r, st))).map {
          (r, st) =>
            assert(firstFails > 100, s"$firstFails")
            assertEquals(
              st.requests + st.dropped,
              n + r.retries,
              "every attempt reached the server"
            )
            assert(r.retries >= firstFails / 2, s"retries ${r.retries}")
            // Six attempts each: nearly every request ends answered with 200.
            assert(r.statuses.getOrElse(200, 0L) >= n - 2, r.statuses.toString)
            assertAddsUp(r)
        }
      }
  }

  test("timeouts fire") {
    server(ServerConfig.default.withFaults(ok(Faults.of(0, 0, 1.0)))).use { s =>
      run(load(s, 20, 10).withTimeout(PositiveDuration.millis(200))).map { r =>
        assertEquals(r.errors, Map(ErrorClass.Timeout -> 20L))
        assertAddsUp(r)
      }
    }
  }

  test("refused connections are counted, and a server that keeps refusing ends the run") {
    val port = server(ServerConfig.default).use(s => IO.pure(s.port)) // now closed
    port.flatMap { p =>
      val t = ok(UrlTemplate.parse(s"http://127.0.0.1:$p/{id}"))
      run(
        ok(
          LoadConfig(LoadConfig.Source.Template(t, Some(1000000L))).withConcurrency(Concurrency(4))
        )
      )
        .map { r =>
          assertEquals(r.ending, Ending.ServerGone)
          assertEquals(r.errors.keySet, Set(ErrorClass.Refused))
          assert(r.launched < 1000, s"launched ${r.launched} after the server was gone")
          assertAddsUp(r)
        }
    }
  }

  test("a server that dies mid-run ends the run with a report") {
    server(ServerConfig.default.withDelay(Delay.Uniform(10.millis, 50.millis))).allocated.flatMap {
      (s, stop) =>
        val config = load(s, 10000000, 20).withGrace(NonNegativeDuration.seconds(1))
        (run(config), IO.sleep(500.millis) >> stop).parTupled.map { (r, _) =>
          assertEquals(r.ending, Ending.ServerGone)
          assert(r.statuses.getOrElse(200, 0L) > 0)
          assert(r.errorCount > 0)
          assertAddsUp(r)
        }
    }
  }

  test("a stop ends launching, waits for the requests in flight, and reports them") {
    // The server tells when the 10th request arrives; each is answered after 2 s, so all ten are
    // still in flight at the stop, and none may start after it.
    val (config, tenth) = announcing(10, Delay.Fixed(2.seconds))
    server(config).use { s =>
      LoadRun.create[IO](load(s, 1000000, 10).withGrace(NonNegativeDuration.seconds(10))).flatMap {
        lr =>
          val stopAtTenth = IO.fromCompletableFuture(IO(tenth)) >> lr.stop(Ending.Interrupted)
          (lr.run, stopAtTenth).parTupled.flatMap { (r, _) =>
            s.stats[IO].map { st =>
              assertEquals(r.ending, Ending.Interrupted)
              assertEquals((r.launched, r.responses, r.unfinished), (10L, 10L, 0L))
              assertEquals(st.requests, 10L)
              assertAddsUp(r)
            }
          }
      }
    }
  }

  test("a grace period too short cuts requests off and counts them") {
    server(ServerConfig.default.withDelay(Delay.Fixed(5.seconds))).use { s =>
      LoadRun.create[IO](load(s, 1000, 10).withGrace(NonNegativeDuration.millis(100))).flatMap {
        lr =>
          val stopWhenAllIn =
            s.stats[IO].iterateUntil(_.inFlight == 10) >> lr.stop(Ending.Interrupted)
          (lr.run, IO.sleep(10.millis).foreverM.race(stopWhenAllIn)).parTupled.map { (r, _) =>
            assertEquals((r.launched, r.unfinished, r.finished), (10L, 10L, 0L))
          }
      }
    }
  }

  test("--duration stops launching, and every request launched is accounted for") {
    server(ServerConfig.default.withDelay(Delay.Fixed(20.millis))).use { s =>
      run(load(s, None, 5).withDuration(PositiveDuration.millis(300))).flatMap { r =>
        s.stats[IO].map { st =>
          assertEquals(r.ending, Ending.DurationReached)
          assertEquals((r.unfinished, r.responses), (0L, r.launched))
          assertEquals(st.requests, r.launched)
        }
      }
    }
  }

  test("a file of URLs is streamed, one request per line") {
    server(ServerConfig.default.withDelay(Delay.Fixed(1.milli))).use { s =>
      val lines = (0 until 500).map(i => s"http://127.0.0.1:${s.port}/$i") :+ "" :+ "# a comment"
      urlFile(lines).use { file =>
        run(ok(LoadConfig(LoadConfig.Source.UrlFile(file)).withConcurrency(Concurrency(16))))
          .flatMap { r =>
            s.stats[IO].map { st =>
              assertEquals(r.statuses, Map(200 -> 500L))
              assert(st.peakInFlight <= 16)
            }
          }
      }
    }
  }

  test("a URL file load stopped while its queue is full ends within the grace period") {
    // 10 000 lines, 10 in flight, each answered after 5 s: when the 10th request reaches the
    // server the buffer behind them is full, and the stop comes then.
    val (config, tenth) = announcing(10, Delay.Fixed(5.seconds))
    server(config).use { s =>
      urlFile((0 until 10000).map(i => s"http://127.0.0.1:${s.port}/$i")).use { file =>
        val load = ok(
          LoadConfig(LoadConfig.Source.UrlFile(file))
            .withConcurrency(Concurrency(10))
        ).withGrace(NonNegativeDuration.millis(300))
        LoadRun.create[IO](load).flatMap { lr =>
          val stopAtTenth = IO.fromCompletableFuture(IO(tenth)) >> lr.stop(Ending.Interrupted)
          // The guard is no timing assertion: the old launcher hung here for ever.
          (lr.run, stopAtTenth).parTupled.timeout(30.seconds).map { (r, _) =>
            assertEquals(r.ending, Ending.Interrupted)
            assertEquals((r.launched, r.unfinished, r.finished), (10L, 10L, 0L))
          }
        }
      }
    }
  }

  test("bad lines deep in a URL file are counted with their line numbers; the load goes on") {
    server(ServerConfig.default.withDelay(Delay.Fixed(1.milli))).use { s =>
      val lines = (0 until 1000).map {
        case 300 => "garbage here"
        case 600 => "ftp://127.0.0.1/secure"
        case 900 => s"http://127.0.0.1:${s.port}/{id}"
        case i   => s"http://127.0.0.1:${s.port}/$i"
      }
      urlFile(lines).use { file =>
        run(ok(LoadConfig(LoadConfig.Source.UrlFile(file)).withConcurrency(Concurrency(16)))).map {
          r =>
            assertEquals(r.statuses, Map(200 -> 997L))
            assertEquals(r.badLines.map(_.line), List(301L, 601L, 901L))
            assertEquals(r.errors, Map(ErrorClass.Input -> 3L))
            assert(r.badLines(1).reason.contains("ftp"), r.badLines(1).reason)
            assertAddsUp(r)
        }
      }
    }
  }

  test("a server with a capacity serves that many at once; the rest wait their turn") {
    server(ServerConfig.default.withDelay(Delay.Fixed(20.millis)).withCapacity(Capacity(5)))
      .use { s =>
        run(load(s, 200, 20)).flatMap { r =>
          s.stats[IO].map { st =>
            assertEquals(r.statuses, Map(200 -> 200L))
            assertEquals(s.peakServing, Some(5))
            assertEquals(st.peakInFlight, 20) // in the server: served or waiting
          }
        }
      }
  }

  test("connections are spread over the client's event loops") {
    server(ServerConfig.default.withDelay(Delay.Fixed(500.millis))).use { s =>
      // as `weir load` runs: the requests' fibers compute on the client's own event loops
      EventLoopRuntime.resource(2).use { (group, runtime) =>
        HttpClient.on[IO](group, 5.seconds).use { client =>
          val target = Target("127.0.0.1", s.port, "/1")
          List
            .fill(64)(client.send(target, RequestSpec.default))
            .parSequence
            .evalOn(runtime.compute)
            .map { results =>
              assertEquals(results.distinct, List(Right(200)))
              // Each new connection goes to the next loop; a late request may reuse one (60 seen).
              val idle = client.idleByLoop("127.0.0.1", s.port)
              assertEquals(idle.size, 2)
              assert(idle.sum > 32 && (idle(0) - idle(1)).abs <= 1, idle)
            }
        }
      }
    }
  }

  test("the warm-up goes to weir's own server, before the load, and is counted apart") {
    val n = 400
    val hits = new AtomicIntegerArray(n)
    val strays = new java.util.concurrent.atomic.AtomicInteger
    val config = ServerConfig.default.withDelay(Delay.Fixed(1.milli)).withListener { k =>
      if k >= 0 && k < n then hits.incrementAndGet(k.toInt): Unit
      else strays.incrementAndGet(): Unit
    }
    server(config).use { s =>
      for
        loadRun <- LoadRun.create[IO](ok(load(s, n, 20).withWarmUp(700)))
        before <- IO.monotonic
        notYet <- loadRun.startedAt
        r <- loadRun.run
        st <- s.stats[IO]
        startedAt <- loadRun.startedAt
      yield
        assertEquals(notYet, None)
        // The load's clock starts after the warm-up, which ran between `before` and that start.
        assert(startedAt.exists(_ - before >= r.warmUp.fold(Duration.Zero)(_.elapsed)))
        assertEquals((0 until n).filter(hits.get(_) != 1).toList, Nil)
        assertEquals((st.requests, strays.get), (n.toLong, 0), "the target saw warm-up requests")
        assertEquals(r.warmUp.map(w => (w.requests, w.problem)), Some((700L, None)))
        assert(r.warmUp.exists(_.elapsed > Duration.Zero))
        assertEquals((r.launched, r.statuses), (n.toLong, Map(200 -> n.toLong)))
        assertAddsUp(r)
    }
  }

  test("a stop during the warm-up cancels it, and nothing is launched") {
    server(ServerConfig.default.withDelay(Delay.Fixed(1.milli))).use { s =>
      LoadRun.create[IO](ok(load(s, 100, 10).withWarmUp(100000000L))).flatMap { load =>
        val stopWhenWarming =
          (IO.sleep(5.millis) >> load.warmingUp).iterateUntil(identity) >> IO.sleep(50.millis) >>
            load.stop(Ending.Interrupted)
        (load.run, stopWhenWarming).parTupled.flatMap { (r, _) =>
          load.warmingUp.map { warmingUp =>
            assertEquals((r.launched, r.ending, r.warmUp), (0L, Ending.Interrupted, None))
            assertEquals(warmingUp, false)
          }
        }
      }
    }
  }

  test("POST /reset zeroes the stats and numbers arrivals from 0 again") {
    val keys = new java.util.concurrent.ConcurrentLinkedQueue[Long]()
    server(
      ServerConfig.default.withDelay(Delay.Fixed(1.milli)).withListener(k => keys.add(k): Unit)
    )
      .use { s =>
        HttpClient.resource[IO](1, 5.seconds).use { client =>
          val root = client.send(Target("127.0.0.1", s.port, "/"), RequestSpec.default)
          val reset = (m: String) =>
            client.send(
              Target("127.0.0.1", s.port, "/reset"),
              RequestSpec.default.withMethod(m).toOption.get
            )
          for
            before <- root.replicateA(3)
            get <- reset("GET")
            post <- reset("POST")
            stats <- s.stats[IO]
            after <- root.replicateA(2)
          yield
            assertEquals((before ++ after).distinct, List(Right(200)))
            assertEquals((get, post), (Right(405), Right(200)))
            assertEquals(stats.requests, 0L)
            assertEquals(List.from(keys.iterator.asScala), List(0L, 1L, 2L, 0L, 1L))
        }
      }
  }

  test("GET /stats and /healthz answer") {
    server(ServerConfig.default).use { s =>
      HttpClient.resource[IO](1, 5.seconds).use { client =>
        for
          h <- client.send(Target("127.0.0.1", s.port, "/healthz"), RequestSpec.default)
          st <- client.send(Target("127.0.0.1", s.port, "/stats"), RequestSpec.default)
        yield assertEquals((h, st), (Right(200), Right(200)))
      }
    }
  }
