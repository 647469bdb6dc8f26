package weir.cli.load

import cats.effect.{ExitCode, IO, Resource}
import io.circe.parser.parse
import java.io.ByteArrayOutputStream
import java.nio.file.{Files, Path}
import java.time.Instant
import munit.CatsEffectSuite
import scala.concurrent.duration.*
import weir.cli.{InProcess, Main}
import weir.cli.common.Exit
import weir.cli.serve.Certificates
import weir.cli.serve.Certificates.Issued
import weir.http.{Delay, DelayServer, ServerConfig, ServerTls}
import weir.postgres.TempPaths

/** `weir load https://...` end to end (in process, the same `Main`) against a real TLS delay server
  * on a loopback port, with certificates made by the test: a CA of its own, and server certificates
  * it signs (for the right host, another host, expired) or that sign themselves.
  */
class LoadTlsSuite extends CatsEffectSuite with TempPaths.Cleanup:

  override def munitIOTimeout: Duration = 120.seconds

  private val now = Instant.now
  private val ca =
    Certificates.issue(
      "weir test CA",
      Nil,
      None,
      now.minusSeconds(3600),
      now.plusSeconds(86400),
      ca = true
    )
  private def signed(names: List[String], until: Instant = now.plusSeconds(86400)): Issued =
    Certificates.issue(names.head, names, Some(ca), now.minusSeconds(7200), until, ca = false)
  private val good = signed(List("localhost", "127.0.0.1"))

  private def pem(certificate: java.security.cert.X509Certificate): Path =
    val file = tempPaths.file("weir-ca", ".pem")
    Files.writeString(file, ServerTls.of(List(certificate), ca.key).toOption.get.certificatePem)
  private val caFile = pem(ca.certificate)

  private def server(cert: Issued): Resource[IO, DelayServer] =
    val config = for
      base <- ServerConfig.default.withDelay(Delay.Fixed(Duration.Zero)).withPort(0)
      one <- base.withThreads(1)
      tls <- ServerTls.of(List(cert.certificate, ca.certificate), cert.key)
    yield one.withTls(tls)
    DelayServer.resource[IO](config.fold(e => fail(e.getMessage), identity))

  private def weir(args: String*): IO[(ExitCode, String, String)] = InProcess.run(args*)

  private def load(port: Int, more: String*) =
    weir(
      (List("load", s"https://127.0.0.1:$port/{id}", "-n", "50", "-c", "5", "--warm-up", "0") ++
        List("--no-live", "--format", "json") ++ more)*
    )

  for engine <- List("openssl", "jdk") do engineTests(engine)

  /** The load and its refusals on one TLS engine: the same checks, with the same messages, on both.
    */
  private def engineTests(engine: String): Unit =
    def load(port: Int, more: String*) =
      LoadTlsSuite.this.load(port, (List("--tls-engine", engine) ++ more)*)

    test(s"$engine: --cacert: the load runs over TLS, every request reaches the server once") {
      server(good).use { s =>
        load(s.port, "--cacert", caFile.toString).flatMap { (code, out, err) =>
          val json = parse(out).fold(e => fail(s"$e: $out $err"), identity).hcursor
          assertEquals(code, Exit.Ok, err)
          assertEquals(json.get[Long]("responses"), Right(50L))
          assertEquals(json.get[Boolean]("tls_insecure"), Right(false))
          assert(json.get[String]("tls").exists(_.contains(caFile.toString)), out)
          s.stats[IO].map(st => assertEquals((st.requests, st.statuses), (50L, Map(200 -> 50L))))
        }
      }
    }

    test(
      s"$engine: without --cacert, a certificate of an unknown CA is refused before the load: exit 2"
    ) {
      server(good).use { s =>
        load(s.port).flatMap { (code, out, err) =>
          assertEquals(code, Exit.BadInput)
          assertEquals(out, "")
          assert(err.contains("the server's certificate is not trusted"), err)
          assert(
            err.contains("CN=weir test CA") && err.contains("--cacert") && err.contains(
              "--insecure"
            ),
            err
          )
          assert(!err.contains("\tat "), err) // no stack trace
          s.stats[IO].map(st => assertEquals(st.requests, 0L))
        }
      }
    }

    test(s"$engine: a certificate for another host is refused: which host it is for") {
      server(signed(List("other.example"))).use { s =>
        load(s.port, "--cacert", caFile.toString).flatMap { (code, _, err) =>
          assertEquals(code, Exit.BadInput)
          assert(
            err.contains("the server's certificate is for other.example, not for 127.0.0.1"),
            err
          )
          s.stats[IO].map(st => assertEquals(st.requests, 0L))
        }
      }
    }

    test(s"$engine: an expired certificate is refused: when it expired") {
      val until = now.minusSeconds(3600)
      server(signed(List("127.0.0.1"), until)).use { s =>
        load(s.port, "--cacert", caFile.toString).map { (code, _, err) =>
          assertEquals(code, Exit.BadInput)
          val day = until.toString.take(10)
          assert(err.contains(s"the server's certificate expired on $day"), err)
          assert(err.contains("--insecure"), err)
        }
      }
    }

    test(s"$engine: --insecure loads against an untrusted certificate, and the report says so") {
      server(signed(List("other.example"))).use { s =>
        load(s.port, "--insecure").flatMap { (code, out, err) =>
          assertEquals(code, Exit.Ok, err)
          val json = parse(out).fold(e => fail(s"$e: $out"), identity).hcursor
          assertEquals(json.get[Boolean]("tls_insecure"), Right(true))
          assertEquals(json.get[String]("tls"), Right("certificates NOT verified (--insecure)"))
          weir(
            "load",
            s"https://127.0.0.1:${s.port}/{id}",
            "-n",
            "3",
            "--warm-up",
            "0",
            "--no-live",
            "--insecure"
          )
            .map((_, text, _) =>
              assert(text.contains("tls  ") && text.contains("NOT verified"), text)
            )
        }
      }
    }

    test(s"$engine: --no-keepalive: a handshake per request, resumed after the first (BoringSSL)") {
      server(good).use { s =>
        load(s.port, "--cacert", caFile.toString, "--no-keepalive", "-c", "1", "-n", "20").map {
          (code, out, err) =>
            assertEquals(code, Exit.Ok, err)
            // The probe's handshake, then one per request.
            assertEquals(s.handshakes.map(_.total), Some(21L))
            val json = parse(out).fold(e => fail(s"$e: $out"), identity).hcursor
            assertEquals(json.get[Option[String]]("tls_engine"), Right(Some(engine)))
            assertEquals(json.get[Option[Long]]("tls_handshakes"), Right(Some(20L)))
            // BoringSSL resumes the first connection's session (a TLS 1.3 ticket from the JDK's
            // server) on every later one, and says so; the JDK's engine does not say.
            val resumed = Option.when(engine == "openssl")(19L)
            assertEquals(json.get[Option[Long]]("tls_resumed"), Right(resumed))
        }
      }
    }

  test(
    "http:// against a TLS port: every request fails, and the report asks whether it is https://"
  ) {
    server(signed(List("localhost", "127.0.0.1"))).use { s =>
      weir("load", s"http://127.0.0.1:${s.port}/{id}", "-n", "5", "--warm-up", "0", "--no-live")
        .map { (code, out, err) =>
          assertEquals(code, Exit.Failed, err)
          assert(out.contains("does it speak https:// (TLS) on that port?"), out)
        }
    }
  }

  test("weir serve --tls, then weir load with the PEM copy it printed") {
    val err = new ByteArrayOutputStream
    val capture = InProcess.stderrInto(err)
    val served = Main.run(List("serve", "--tls", "--port", "0", "--delay", "0", "--threads", "1"))
    def printed: IO[(String, String)] =
      IO(err.toString("UTF-8")).flatMap { text =>
        val url = """https://127\.0\.0\.1:\d+/\{id\}""".r.findFirstIn(text)
        val file = """its PEM copy: (\S+);""".r.findFirstMatchIn(text).map(_.group(1))
        (url, file) match
          case (Some(u), Some(f)) => IO.pure((u, f))
          case _                  => IO.sleep(100.millis) >> printed
      }
    val loaded = printed.timeout(30.seconds).flatMap { (url, file) =>
      weir("load", url, "-n", "30", "-c", "3", "--warm-up", "0", "--no-live", "--format", "json")
        .product(
          weir(
            "load",
            url,
            "-n",
            "30",
            "-c",
            "3",
            "--warm-up",
            "0",
            "--no-live",
            "--format",
            "json",
            "--cacert",
            file
          )
        )
    }
    capture.surround(served.background.surround(loaded)).map { (without, withPem) =>
      assertEquals(without._1, Exit.BadInput, without._3) // self-signed: not trusted without it
      val (code, out, errors) = withPem
      assertEquals(code, Exit.Ok, errors)
      val json = parse(out).fold(e => fail(s"$e: $out"), identity).hcursor
      assertEquals(json.get[Long]("responses"), Right(30L))
    }
  }
