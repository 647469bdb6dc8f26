package weir.cli.load

import cats.effect.{ExitCode, IO, Resource}
import cats.syntax.all.*
import io.circe.parser.parse
import java.nio.file.{Files, Path}
import java.time.Instant
import munit.CatsEffectSuite
import scala.concurrent.duration.*
import weir.Capacity
import weir.cli.InProcess
import weir.cli.common.Exit
import weir.cli.serve.Certificates
import weir.http.{Delay, DelayServer, ServerConfig, ServerSettled, ServerTls}
import weir.postgres.TempPaths

/** `weir load --http2` end to end (in process, the same `Main`) against a real `weir serve --http2`
  * on a loopback port: h2c with prior knowledge, h2 over TLS with a CA made by the test, servers
  * that do not speak HTTP/2, a stream limit, and a `--duration` stop. The assertions count what the
  * server saw (requests, streams in flight at once, HTTP/2 connections, TLS handshakes).
  */
class LoadHttp2Suite extends CatsEffectSuite with TempPaths.Cleanup:

  override def munitIOTimeout: Duration = 120.seconds

  private val now = Instant.now
  private val ca = Certificates.issue(
    "weir test CA",
    Nil,
    None,
    now.minusSeconds(3600),
    now.plusSeconds(86400),
    ca = true
  )
  private val good = Certificates.issue(
    "localhost",
    List("localhost", "127.0.0.1"),
    Some(ca),
    now.minusSeconds(3600),
    now.plusSeconds(86400),
    ca = false
  )
  private val caFile: Path =
    val file = tempPaths.file("weir-ca", ".pem")
    Files.writeString(file, ServerTls.of(List(ca.certificate), ca.key).toOption.get.certificatePem)

  private def server(
      delay: Delay,
      http2: Boolean = true,
      tls: Boolean = false,
      maxStreams: Option[Capacity] = None
  ): Resource[IO, DelayServer] =
    val config = for
      base <- ServerConfig.default.withDelay(delay).withPort(0)
      one <- base.withThreads(1)
      secured <-
        if !tls then Right(one)
        else ServerTls.of(List(good.certificate, ca.certificate), good.key).map(one.withTls)
      h2 = if http2 then secured.withHttp2 else secured
    yield maxStreams.fold(h2)(h2.withMaxStreams)
    DelayServer.resource[IO](config.fold(e => fail(e.getMessage), identity))

  private def weir(args: String*): IO[(ExitCode, String, String)] = InProcess.run(args*)

  private def load(url: String, more: String*) =
    weir(
      (List("load", url, "--http2", "--warm-up", "0", "--no-live", "--format", "json") ++ more)*
    )

  private def json(out: String, err: String) =
    parse(out).fold(e => fail(s"$e: $out $err"), identity).hcursor

  test("h2c: N requests, the server counts N, at most c streams at once on --connections") {
    server(Delay.Fixed(50.millis)).use { s =>
      load(s"http://127.0.0.1:${s.port}/{id}", "-n", "400", "-c", "20", "--connections", "3")
        .flatMap { (code, out, err) =>
          val j = json(out, err)
          assertEquals(code, Exit.Ok, err)
          assertEquals(j.get[Long]("responses"), Right(400L))
          assertEquals(j.get[String]("protocol"), Right("h2c on 3 connections"))
          s.stats[IO].map { st =>
            assertEquals((st.requests, st.statuses), (400L, Map(200 -> 400L)))
            assertEquals(st.peakInFlight, 20, "streams in flight at once, as the server saw them")
            // The probe's HTTP/2 connection, then the load's three.
            assertEquals(st.http2Connections, 4L)
          }
        }
    }
  }

  test("h2 over TLS (ALPN) with the test's CA: every request once, the report says h2") {
    server(Delay.Fixed(Duration.Zero), tls = true).use { s =>
      val url = s"https://127.0.0.1:${s.port}/{id}"
      load(url, "-n", "300", "-c", "10", "--connections", "2", "--cacert", caFile.toString)
        .flatMap { (code, out, err) =>
          val j = json(out, err)
          assertEquals(code, Exit.Ok, err)
          assertEquals(j.get[Long]("responses"), Right(300L))
          assertEquals(j.get[String]("protocol"), Right("h2 on 2 connections"))
          s.stats[IO].map { st =>
            assertEquals((st.requests, st.statuses), (300L, Map(200 -> 300L)))
            assert(st.peakInFlight <= 10, st.toString)
            assertEquals(st.http2Connections, 3L) // the HTTP/2 probe and two
            // The TLS probe (HTTP/1.1), the HTTP/2 probe, and the load's two connections.
            assertEquals(s.handshakes.map(_.total), Some(4L))
          }
        }
    }
  }

  test("the server's stream limit: streams beyond it wait, none fails") {
    server(Delay.Fixed(20.millis), maxStreams = Some(Capacity(4))).use { s =>
      load(s"http://127.0.0.1:${s.port}/{id}", "-n", "200", "-c", "20", "--connections", "1")
        .flatMap { (code, out, err) =>
          val j = json(out, err)
          assertEquals(code, Exit.Ok, err)
          assertEquals(j.get[Long]("responses"), Right(200L))
          s.stats[IO].map { st =>
            assertEquals(st.requests, 200L)
            assertEquals(st.peakInFlight, 4, "SETTINGS_MAX_CONCURRENT_STREAMS 4 on one connection")
          }
        }
    }
  }

  test("no --connections: enough connections for -c within the server's stream limit") {
    // 4 streams a connection and -c 14: 4 connections (2, the default, would hold 8 streams).
    server(Delay.Fixed(50.millis), maxStreams = Some(Capacity(4))).use { s =>
      load(s"http://127.0.0.1:${s.port}/{id}", "-n", "140", "-c", "14").flatMap {
        (code, out, err) =>
          val j = json(out, err)
          assertEquals(code, Exit.Ok, err)
          assertEquals(j.get[Long]("responses"), Right(140L))
          assertEquals(j.get[String]("protocol"), Right("h2c on 4 connections"))
          s.stats[IO].map { st =>
            assertEquals(st.requests, 140L)
            assertEquals(st.peakInFlight, 14, "every stream ran at once, none waited on a limit")
            assertEquals(st.http2Connections, 5L) // the probe's and the load's four
          }
      }
    }
  }

  test("no --connections and no server limit: the default two; the report gives the client CPU") {
    server(Delay.Fixed(Duration.Zero)).use { s =>
      load(s"http://127.0.0.1:${s.port}/{id}", "-n", "100", "-c", "30").flatMap {
        (code, out, err) =>
          val j = json(out, err)
          assertEquals(code, Exit.Ok, err)
          assertEquals(j.get[String]("protocol"), Right("h2c on 2 connections"))
          assert(j.get[Double]("client_cpu_s").exists(_ >= 0), out)
          assert(j.get[Double]("client_cpu_ms_per_request").exists(_ >= 0), out)
          s.stats[IO].map(st => assertEquals(st.http2Connections, 3L))
      }
    }
  }

  test("an HTTP/1.1-only TLS server (ALPN http/1.1): refused before the load, exit 2") {
    server(Delay.Fixed(Duration.Zero), http2 = false, tls = true).use { s =>
      load(s"https://127.0.0.1:${s.port}/{id}", "-n", "10", "--cacert", caFile.toString)
        .flatMap { (code, out, err) =>
          assertEquals(code, Exit.BadInput, err)
          assertEquals(out, "")
          assert(err.contains("does not speak HTTP/2"), err)
          assert(err.contains("asked for h2 in the TLS handshake (ALPN), it chose"), err)
          assert(err.contains("drop --http2"), err)
          assert(!err.contains("\tat "), err)
          s.stats[IO].map(st => assertEquals(st.requests, 0L))
        }
    }
  }

  test("h2c against an HTTP/1.1-only server: refused within the connect timeout, exit 2") {
    // A long delay: the HTTP/1.1 server takes the preface for a request and sits on it.
    server(Delay.Fixed(60.seconds), http2 = false).use { s =>
      load(s"http://127.0.0.1:${s.port}/{id}", "-n", "10", "--connect-timeout", "1s")
        .flatMap { (code, out, err) =>
          assertEquals(code, Exit.BadInput, err)
          assertEquals(out, "")
          assert(err.contains("does not speak HTTP/2"), err)
          assert(err.contains("h2c"), err)
          assert(err.contains("drop --http2"), err)
          assert(!err.contains("\tat "), err)
          IO.unit
        }
    }
  }

  test("h2c against an HTTP/1.1-only server that answers: refused at once, saying so, exit 2") {
    server(Delay.Fixed(Duration.Zero), http2 = false).use { s =>
      load(s"http://127.0.0.1:${s.port}/{id}", "-n", "10")
        .flatMap { (code, out, err) =>
          assertEquals(code, Exit.BadInput, err)
          assertEquals(out, "")
          assert(
            err.contains(s"127.0.0.1:${s.port} does not speak HTTP/2: it answered in HTTP/1.x"),
            err
          )
          assert(err.contains("drop --http2"), err)
          assert(!err.contains("is the server running"), err)
          IO.unit
        }
    }
  }

  test("--duration stops an HTTP/2 load: every launched stream is reset and counted unfinished") {
    server(Delay.Fixed(30.seconds)).use { s =>
      val url = s"http://127.0.0.1:${s.port}/{id}"
      load(url, "--duration", "2s", "--grace", "1s", "-c", "30", "--connections", "2")
        .flatMap { (code, out, err) =>
          val j = json(out, err)
          assertEquals(j.get[String]("ending"), Right("durationreached"), err)
          val launched = j.get[Long]("launched").fold(e => fail(e.getMessage), identity)
          assert(launched >= 1 && launched <= 30, out)
          assertEquals(j.get[Long]("unfinished"), Right(launched))
          assertEquals(j.get[Long]("responses"), Right(0L))
          assertEquals(code, Exit.Ok)
          // The server saw each launched stream, and each was reset: none is left waiting.
          ServerSettled(s).map(st => assertEquals(st.requests, launched))
        }
    }
  }

  test("--connections without --http2, and --http2 with --no-keepalive, are refused: exit 2") {
    val noHttp2 = weir("load", "http://127.0.0.1:1/{id}", "-n", "1", "--connections", "2")
    val noKeepAlive =
      weir("load", "http://127.0.0.1:1/{id}", "-n", "1", "--http2", "--no-keepalive")
    (noHttp2, noKeepAlive).tupled.map { case ((c1, _, e1), (c2, _, e2)) =>
      assertEquals(c1, Exit.BadInput)
      assert(e1.contains("--connections: applies to --http2 only"), e1)
      assertEquals(c2, Exit.BadInput)
      assert(e2.contains("--no-keepalive"), e2)
    }
  }
