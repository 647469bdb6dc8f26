package weir.cli.serve

import cats.effect.{IO, Resource}
import cats.syntax.all.*
import com.monovore.decline.Command
import io.circe.parser.parse
import java.io.ByteArrayOutputStream
import java.nio.file.{Files, Paths}
import java.time.Instant
import munit.CatsEffectSuite
import scala.concurrent.duration.*
import weir.cli.{InProcess, Main}
import weir.cli.common.Exit
import weir.http.{Delay, DelayServer, ServerConfig, ServerTls, TlsEngine}

/** `weir serve --tls` on either TLS engine (`--tls-engine jdk|openssl`): real handshakes from `weir
  * load` over HTTP/1.1 and HTTP/2 (h2 chosen in ALPN), counted by the server, which sees on each
  * connection's own `SSLEngine` which engine ran it.
  */
class ServeTlsSuite extends CatsEffectSuite:

  override def munitIOTimeout: Duration = 120.seconds

  private val engines =
    List(TlsEngine.OpenSsl, TlsEngine.Jdk).filter(_.available)

  private def server(engine: TlsEngine, http2: Boolean): Resource[IO, DelayServer] =
    val issued = Certificates.selfSigned(List("127.0.0.1"), Instant.now)
    val config = for
      base <- ServerConfig.default.withDelay(Delay.Fixed(Duration.Zero)).withPort(0)
      one <- base.withThreads(1)
      tls <- ServerTls.of(List(issued.certificate), issued.key)
      secured = one.withTls(tls.withEngine(engine))
    yield if http2 then secured.withHttp2 else secured
    DelayServer.resource[IO](config.fold(e => fail(e.getMessage), identity))

  for
    engine <- engines
    http2 <- List(false, true)
  do
    val protocol = if http2 then "h2" else "http/1.1"
    test(
      s"a server on ${engine.name}: $protocol loads handshake with it, every handshake counted"
    ) {
      server(engine, http2).use { s =>
        val args =
          List("load", s"https://127.0.0.1:${s.port}/{id}", "-n", "30", "-c", "3") ++
            List("--warm-up", "0", "--no-live", "--format", "json", "--insecure") ++
            (if http2 then List("--http2") else Nil)
        InProcess.run(args*).flatMap { (code, out, err) =>
          assertEquals(code, Exit.Ok, err)
          val json = parse(out).fold(e => fail(s"$e: $out $err"), identity).hcursor
          assertEquals(json.get[Long]("responses"), Right(30L))
          s.stats[IO].map { st =>
            assertEquals((st.requests, st.statuses), (30L, Map(200 -> 30L)))
            // HTTP/1.1: the probe's handshake, then one per connection (c = 3, keep-alive).
            // HTTP/2: the probe's, the HTTP/2 probe's, then two connections (--connections 2).
            assertEquals(s.handshakes.map(_.byEngine), Some(Map(engine -> 4L)))
            // Connections that spoke HTTP/2: the HTTP/2 probe's and the load's two.
            assertEquals(st.http2Connections, if http2 then 3L else 0L)
          }
        }
      }
    }

  test(
    "weir serve --tls --tls-engine E --http2: it says which engine serves; h2 and http/1.1 load"
  ) {
    val err = new ByteArrayOutputStream
    val capture = InProcess.stderrInto(err)
    def served(engine: TlsEngine) = Main.run(
      List("serve", "--tls", "--tls-engine", engine.name, "--http2") ++
        List("--port", "0", "--delay", "0", "--threads", "1")
    )
    def printed(engine: TlsEngine): IO[(String, String)] =
      IO(err.toString("UTF-8")).flatMap { text =>
        val announced = text.contains(s"TLS on ${engine.describe} with a self-signed certificate")
        val url = """https://127\.0\.0\.1:\d+/\{id\}""".r.findFirstIn(text)
        val file = """its PEM copy: (\S+);""".r.findFirstMatchIn(text).map(_.group(1))
        (url, file) match
          case (Some(u), Some(f)) if announced => IO.pure((u, f))
          case _                               => IO.sleep(100.millis) >> printed(engine)
      }
    def loads(url: String, file: String) =
      List(Nil, List("--http2")).map { more =>
        InProcess
          .run(
            (List("load", url, "-n", "20", "-c", "2", "--warm-up", "0", "--no-live") ++
              List("--format", "json", "--cacert", file) ++ more)*
          )
          .map { (code, out, errors) =>
            assertEquals(code, Exit.Ok, errors)
            val json = parse(out).fold(e => fail(s"$e: $out"), identity).hcursor
            assertEquals(json.get[Long]("responses"), Right(20L))
            json.get[Option[String]]("protocol").toOption.flatten
          }
      }
    // The PEM copy goes with the server: stopped (cancelled, as SIGTERM cancels the command), it
    // is deleted.
    val each = engines.map { engine =>
      IO(err.reset()) >> served(engine).background
        .surround(
          printed(engine).timeout(30.seconds).flatMap((u, f) => loads(u, f).sequence.tupleRight(f))
        )
        .flatMap { (protocols, file) =>
          IO.blocking(Files.exists(Paths.get(file)))
            .map(left => assert(!left, s"$file is left after the server stopped"))
            .as(protocols)
        }
    }
    capture.surround(each.sequence).map { protocols =>
      protocols.foreach(p => assert(p.lift(1).flatten.exists(_.contains("h2")), p))
    }
  }

  private val tlsCommand = Command("serve", "")(ServeOptions.tls)

  test("--tls-engine without --tls is refused, naming the option; a wrong name too") {
    val alone = tlsCommand.parse(List("--tls-engine", "jdk")).fold(_.errors, _ => Nil)
    assert(alone.exists(_.contains("--tls-engine: applies to --tls only")), alone)
    val wrong = tlsCommand.parse(List("--tls", "--tls-engine", "gnutls")).fold(_.errors, _ => Nil)
    assert(wrong.exists(_.contains("--tls-engine: 'gnutls' is not a TLS engine")), wrong)
    assertEquals(
      tlsCommand.parse(List("--tls", "--tls-engine", "jdk")),
      Right(ServeOptions.Tls.SelfSigned(Some(TlsEngine.Jdk)))
    )
    assertEquals(tlsCommand.parse(List("--tls")), Right(ServeOptions.Tls.SelfSigned(None)))
  }
