package weir.http

import cats.effect.{IO, Resource}
import cats.syntax.all.*
import munit.CatsEffectSuite
import scala.concurrent.duration.*
import weir.{Concurrency, ConfigError}

/** A client resolves its TLS engine (and so loads BoringSSL's native library) only for `https://`:
  * plain HTTP and h2c loads never ask [[TlsEngine.default]] and never build a TLS context. Counted
  * by [[TlsEngine.timesAsked]] and the clients' own flags, against a real server.
  */
class LazyTlsSuite extends CatsEffectSuite:

  override def munitIOTimeout: Duration = 60.seconds

  private def ok[A](e: Either[ConfigError, A]): A = e.fold(e => fail(e.getMessage), identity)

  private def server(http2: Boolean): Resource[IO, DelayServer] =
    val base = ok(ServerConfig.default.withDelay(Delay.Fixed(Duration.Zero)).withPort(0))
    val one = ok(base.withThreads(1))
    DelayServer.resource[IO](if http2 then one.withHttp2 else one)

  private def load(s: DelayServer, http2: Boolean): LoadConfig =
    val template = ok(UrlTemplate.parse(s"http://127.0.0.1:${s.port}/{id}"))
    val config = LoadConfig(LoadConfig.Source.Template(template, Some(200L)))
      .withConcurrency(Concurrency(4))
      .flatMap(_.withIoThreads(1))
      .flatMap(_.withWarmUp(50))
    ok(if http2 then config.flatMap(_.withHttp2(2)) else config)

  test("the default ClientTls has no engine chosen: making it resolves nothing") {
    assertEquals(ClientTls.default.chosen, None)
    assertEquals(ClientTls.default.insecure.chosen, None)
    assertEquals(ClientTls.default.withEngine(TlsEngine.Jdk).chosen, Some(TlsEngine.Jdk))
  }

  for http2 <- List(false, true) do
    val name = if http2 then "h2c" else "HTTP/1.1"
    test(s"a plain $name load (warm-up included) never asks for the TLS engine") {
      server(http2).use { s =>
        for
          before <- IO(TlsEngine.timesAsked)
          report <- LoadRun.create[IO](load(s, http2)).flatMap(_.run)
          after <- IO(TlsEngine.timesAsked)
          stats <- s.stats[IO]
        yield
          assertEquals(report.responses, 200L)
          assertEquals(stats.requests, 200L) // the warm-up's went to weir's own server
          assertEquals(report.sessions, None)
          assertEquals(report.tls, None)
          assertEquals(after - before, 0L, "the TLS engine was resolved for a plain HTTP load")
      }
    }

  test("HttpClient builds its TLS context on its first https:// connection, not before") {
    server(http2 = false).use { s =>
      HttpClient.resource[IO](1, HttpClient.Settings(10.seconds)).use { client =>
        for
          before <- IO(TlsEngine.timesAsked)
          plain <- (0 until 20).toList
            .traverse(i => client.send(Target("127.0.0.1", s.port, s"/$i"), RequestSpec.default))
          _ = assertEquals(plain, List.fill(20)(Right(200)))
          _ = assert(!client.tlsContextBuilt, "a TLS context was built for plain HTTP")
          _ = assertEquals(TlsEngine.timesAsked - before, 0L)
          // The same server over https:// (it speaks no TLS, so the handshake fails): the context
          // is built now, and the default engine resolved.
          secure <- client
            .send(Target("127.0.0.1", s.port, "/1", secure = true), RequestSpec.default)
        yield
          assert(secure.isLeft, secure)
          assert(client.tlsContextBuilt)
          assert(TlsEngine.timesAsked > before, "the default engine was not resolved for https://")
      }
    }
  }
