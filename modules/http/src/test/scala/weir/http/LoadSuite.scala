package weir.http

import cats.effect.{IO, Resource}
import cats.syntax.all.*
import java.util.concurrent.atomic.AtomicIntegerArray
import munit.CatsEffectSuite
import scala.concurrent.duration.*
import scala.jdk.CollectionConverters.*

/** `weir load` against a real `weir serve` on an ephemeral loopback port. */
class LoadSuite extends CatsEffectSuite:

  override def munitIOTimeout: Duration = 60.seconds

  private def server(config: ServerConfig): Resource[IO, DelayServer] =
    DelayServer.resource[IO](config.withHost("127.0.0.1").withPort(0).withThreads(1))

  private def template(server: DelayServer) =
    UrlTemplate.parse(s"http://127.0.0.1:${server.port}/{id}").toOption.get

  private def load(server: DelayServer, n: Long, c: Int): LoadConfig =
    LoadConfig(LoadConfig.Source.Template(template(server), n)).withConcurrency(c).withIoThreads(1)

  private def run(config: LoadConfig): IO[LoadReport] = LoadRun.create[IO](config).flatMap(_.run)

  private def assertAddsUp(r: LoadReport): Unit =
    assertEquals(r.responses + r.errorCount, r.finished)
    assertEquals(r.finished + r.unfinished, r.launched)
    assertEquals(r.latency.count, r.responses)

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
          assertEquals(
            st.peakInFlight,
            64,
            "the server saw more (or fewer) requests at once than the bound"
          )
          assertEquals(st.peakConnections, 64)
          assertEquals(r.statuses, Map(200 -> n.toLong))
          assertEquals((r.launched, r.peakInFlight, r.ending), (n.toLong, 64, Ending.Completed))
          assertAddsUp(r)
        }
      }
    }
  }

  test("error classes are counted right under injected faults") {
    val n = 2000
    val faults = Faults.default.withErrors(0.1).withDrops(0.05).withStalls(0.02)
    val expected = (0 until n).groupMapReduce(i => faults.of(7, i.toLong))(_ => 1L)(_ + _)
    server(ServerConfig.default.withDelay(Delay.Fixed(1.milli)).withSeed(7).withFaults(faults))
      .use { s =>
        run(load(s, n, 50).withTimeout(300.millis)).map { r =>
          assertEquals(r.statuses.getOrElse(500, 0L), expected(Faults.Fault.Error))
          assertEquals(r.statuses.getOrElse(200, 0L), expected(Faults.Fault.NoFault))
          assertEquals(r.errors.getOrElse(ErrorClass.Reset, 0L), expected(Faults.Fault.Drop))
          assertEquals(r.errors.getOrElse(ErrorClass.Timeout, 0L), expected(Faults.Fault.Stall))
          assertEquals(
            r.errors.getOrElse(ErrorClass.Refused, 0L) + r.errors.getOrElse(ErrorClass.Other, 0L),
            0L
          )
          assertEqualsDouble(r.errorRate, (n - expected(Faults.Fault.NoFault)).toDouble / n, 1e-9)
          assertAddsUp(r)
        }
      }
  }

  test("timeouts fire") {
    server(ServerConfig.default.withFaults(Faults.default.withStalls(1.0))).use { s =>
      run(load(s, 20, 10).withTimeout(200.millis)).map { r =>
        assertEquals(r.errors, Map(ErrorClass.Timeout -> 20L))
        assert(r.elapsed < 2.seconds, s"took ${r.elapsed}")
        assertAddsUp(r)
      }
    }
  }

  test("refused connections are counted, and a server that keeps refusing ends the run") {
    val port = server(ServerConfig.default).use(s => IO.pure(s.port)) // now closed
    port.flatMap { p =>
      val t = UrlTemplate.parse(s"http://127.0.0.1:$p/{id}").toOption.get
      run(LoadConfig(LoadConfig.Source.Template(t, 1000000)).withConcurrency(4).withIoThreads(1))
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
        val config = load(s, 10000000, 20).withGrace(1.second)
        (run(config), IO.sleep(500.millis) >> stop).parTupled.map { (r, _) =>
          assertEquals(r.ending, Ending.ServerGone)
          assert(r.statuses.getOrElse(200, 0L) > 0)
          assert(r.errorCount > 0)
          assertAddsUp(r)
        }
    }
  }

  test("stop ends launching, waits for requests in flight, and reports them") {
    server(ServerConfig.default.withDelay(Delay.Fixed(300.millis))).use { s =>
      LoadRun.create[IO](load(s, 1000000, 10).withGrace(5.seconds)).flatMap { lr =>
        (lr.run, IO.sleep(450.millis) >> lr.stop(Ending.Interrupted)).parTupled.map { (r, _) =>
          assertEquals(r.ending, Ending.Interrupted)
          assertEquals(r.launched, 20L)
          assertEquals((r.responses, r.unfinished), (20L, 0L))
          assertAddsUp(r)
        }
      }
    }
  }

  test("a grace period too short cuts requests off and counts them") {
    server(ServerConfig.default.withDelay(Delay.Fixed(2.seconds))).use { s =>
      LoadRun.create[IO](load(s, 1000, 10).withGrace(100.millis)).flatMap { lr =>
        (lr.run, IO.sleep(200.millis) >> lr.stop(Ending.Interrupted)).parTupled.map { (r, _) =>
          assertEquals((r.launched, r.unfinished, r.finished), (10L, 10L, 0L))
          assert(r.elapsed < 1.second)
        }
      }
    }
  }

  test("--duration stops launching") {
    server(ServerConfig.default.withDelay(Delay.Fixed(20.millis))).use { s =>
      run(load(s, Long.MaxValue, 5).withDuration(Some(300.millis))).map { r =>
        assertEquals(r.ending, Ending.DurationReached)
        assert(r.launched > 20 && r.launched < 200, s"launched ${r.launched}")
        assertEquals(r.unfinished, 0L)
      }
    }
  }

  test("the open model starts requests at the rate") {
    server(ServerConfig.default.withDelay(Delay.Fixed(1.milli))).use { s =>
      run(load(s, 100, 10).withRate(Some(200.0))).map { r =>
        assertEquals(r.statuses, Map(200 -> 100L))
        assert(r.elapsed >= 490.millis && r.elapsed < 2.seconds, s"elapsed ${r.elapsed}")
      }
    }
  }

  test("a file of URLs is streamed, one request per line") {
    server(ServerConfig.default.withDelay(Delay.Fixed(1.milli))).use { s =>
      val file = java.nio.file.Files.createTempFile("weir-urls", ".txt")
      val lines = (0 until 500).map(i => s"http://127.0.0.1:${s.port}/$i") :+ "" :+ "# a comment"
      IO.blocking(java.nio.file.Files.write(file, java.util.Arrays.asList(lines*))) >>
        run(LoadConfig(LoadConfig.Source.UrlFile(file)).withConcurrency(16).withIoThreads(1))
          .flatMap { r =>
            s.stats[IO].map { st =>
              assertEquals(r.statuses, Map(200 -> 500L))
              assert(st.peakInFlight <= 16)
            }
          }
    }
  }

  test("connections are spread over the client's event loops") {
    server(ServerConfig.default.withDelay(Delay.Fixed(50.millis))).use { s =>
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
              assertEquals(client.idleByLoop("127.0.0.1", s.port), Seq(32, 32))
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
        loadRun <- LoadRun.create[IO](load(s, n, 20).withWarmUp(700))
        before <- IO.monotonic
        notYet = loadRun.startedAt
        r <- loadRun.run
        st <- s.stats[IO]
      yield
        assertEquals(notYet, None)
        // The load's clock starts after the warm-up, which ran between `before` and that start.
        assert(loadRun.startedAt.exists(_ - before >= r.warmUp.fold(Duration.Zero)(_.elapsed)))
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
      LoadRun.create[IO](load(s, 100, 10).withWarmUp(100000000L)).flatMap { load =>
        val stopWhenWarming =
          IO.sleep(5.millis).iterateUntil(_ => load.warmingUp) >> IO.sleep(50.millis) >>
            load.stop(Ending.Interrupted)
        (load.run, stopWhenWarming).parTupled.map { (r, _) =>
          assertEquals((r.launched, r.ending, r.warmUp), (0L, Ending.Interrupted, None))
          assertEquals(load.warmingUp, false)
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
            client.send(Target("127.0.0.1", s.port, "/reset"), RequestSpec.default.withMethod(m))
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
