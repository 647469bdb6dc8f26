package weir.http

import cats.effect.{IO, Resource}
import cats.syntax.all.*
import java.util.concurrent.CompletableFuture
import java.util.concurrent.atomic.AtomicInteger
import munit.CatsEffectSuite
import scala.concurrent.duration.*
import weir.{Concurrency, ConfigError, NonNegativeDuration}

/** Ctrl-C during an HTTP/2 load (h2c with prior knowledge, against a real `weir serve --http2` on a
  * loopback port), as [[LoadRun.stop]] and [[LoadRun.stopNow]] are called for the first and the
  * second Ctrl-C: the streams in flight get the grace period, a second stop cuts them off and
  * resets them at the server. The assertions count what the server saw and what the report says;
  * none depends on how long anything took.
  */
class LoadHttp2StopSuite extends CatsEffectSuite:

  override def munitIOTimeout: Duration = 60.seconds

  private def ok[A](e: Either[ConfigError, A]): A = e.fold(e => fail(e.getMessage), identity)

  /** An HTTP/2 server answering after `delay`, and a future completed when its `n`-th request (a
    * stream) arrives.
    */
  private def server(n: Int, delay: Delay): Resource[IO, (DelayServer, CompletableFuture[Unit])] =
    val arrived = new AtomicInteger
    val nth = new CompletableFuture[Unit]()
    val config = ServerConfig.default
      .withDelay(delay)
      .withListener(_ => if arrived.incrementAndGet() == n then nth.complete(()): Unit)
      .withHttp2
      .withHost("127.0.0.1")
    DelayServer.resource[IO](ok(config.withPort(0).flatMap(_.withThreads(1)))).map((_, nth))

  /** A million requests at `c` streams on one h2c connection, with `grace` to finish at a stop. */
  private def load(s: DelayServer, c: Int, grace: NonNegativeDuration): LoadConfig =
    val target = ok(UrlTemplate.parse(s"http://127.0.0.1:${s.port}/{id}"))
    ok(
      Concurrency
        .from(c)
        .flatMap(LoadConfig(LoadConfig.Source.Template(target, Some(1000000L))).withConcurrency)
        .flatMap(_.withIoThreads(1))
        .flatMap(_.withHttp2(1))
    ).withGrace(grace)

  test("Ctrl-C: launching ends, the streams in flight finish within the grace and are reported") {
    // Each stream is answered after 2 s: all ten are in flight at the stop, none may start after it.
    server(10, Delay.Fixed(2.seconds)).use { (s, tenth) =>
      LoadRun.create[IO](load(s, 10, NonNegativeDuration.seconds(30))).flatMap { lr =>
        val stopAtTenth = IO.fromCompletableFuture(IO(tenth)) >> lr.stop(Ending.Interrupted)
        (lr.run, stopAtTenth).parTupled.flatMap { (r, _) =>
          s.stats[IO].map { st =>
            assertEquals(r.ending, Ending.Interrupted)
            assertEquals((r.launched, r.responses, r.unfinished), (10L, 10L, 0L))
            assertEquals(r.protocols, Map("h2c" -> 1L))
            assertEquals((st.requests, st.http2Connections), (10L, 1L))
          }
        }
      }
    }
  }

  test("a second Ctrl-C cuts the streams in flight off at once: unfinished, reset at the server") {
    // Answers after 30 s and a grace of 30 s: only the second stop can end this load early, and
    // then every stream must be reset (the server has none left open) and counted unfinished.
    server(10, Delay.Fixed(30.seconds)).use { (s, tenth) =>
      LoadRun.create[IO](load(s, 10, NonNegativeDuration.seconds(30))).flatMap { lr =>
        val stopTwice = IO.fromCompletableFuture(IO(tenth)) >>
          lr.stop(Ending.Interrupted) >> lr.stopNow(Ending.Interrupted)
        (lr.run, stopTwice).parTupled.flatMap { (r, _) =>
          ServerSettled(s).map { st =>
            assertEquals(r.ending, Ending.Interrupted)
            assertEquals((r.launched, r.responses, r.unfinished), (10L, 0L, 10L))
            assertEquals((st.requests, st.inFlight, st.peakInFlight), (10L, 0, 10))
          }
        }
      }
    }
  }
