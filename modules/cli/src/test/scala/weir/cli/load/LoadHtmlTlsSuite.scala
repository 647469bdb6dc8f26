package weir.cli.load

import cats.effect.{IO, Resource}
import java.nio.file.{Files, Path}
import munit.CatsEffectSuite
import scala.concurrent.duration.*
import weir.cli.InProcess
import weir.cli.common.Exit
import weir.http.{DelayServer, TlsEngine}

/** `weir load --report FILE.html` over TLS: the page's summary says the TLS engine, the version
  * negotiated and the handshakes (resumed ones on BoringSSL), as the text and JSON reports do, for
  * HTTP/1.1 and HTTP/2 loads; a plain `http://` page has no such row. Real loads against a real TLS
  * server, in process.
  */
class LoadHtmlTlsSuite extends CatsEffectSuite:

  override def munitIOTimeout: Duration = 120.seconds

  private def server(tls: Boolean, http2: Boolean = false): Resource[IO, DelayServer] =
    TlsTestServer(tls, http2)

  private val page: Resource[IO, Path] = Resource.make(
    IO.blocking(Files.createTempFile("weir-load", ".html"))
  )(f => IO.blocking(Files.deleteIfExists(f)).void)

  /** `weir load URL args... --report FILE.html`: the page it wrote. */
  private def html(url: String, args: String*): IO[String] =
    page.use { file =>
      val all = List("load", url, "--warm-up", "0", "--no-live", "--report", file.toString) ++ args
      InProcess.run(all*).flatMap { (code, _, err) =>
        assertEquals(code, Exit.Ok, err)
        IO.blocking(Files.readString(file))
      }
    }

  private val engine = TlsEngine.default

  test("https:// with a connection per request: engine, TLS version, handshakes and resumed ones") {
    server(tls = true).use { s =>
      val url = s"https://127.0.0.1:${s.port}/{id}"
      html(url, "-n", "5", "-c", "1", "--no-keepalive", "--insecure").map { page =>
        // BoringSSL resumes the first connection's session on the four after it.
        val resumed = if engine == TlsEngine.OpenSsl then "4 resumed" else "resumed: not counted"
        val row = s"${engine.describe}, TLSv1.3, 5 handshakes ($resumed"
        assert(page.contains("<td>tls engine</td>"), page)
        assert(page.contains(row), s"expected '$row' in the page")
        assert(page.contains("certificates NOT verified (--insecure)"))
        assert(page.contains("\"tls_version\":\"TLSv1.3\""), "the page's JSON")
      }
    }
  }

  test("https:// over HTTP/2: the engine row counts the h2 connections' handshakes") {
    server(tls = true, http2 = true).use { s =>
      val url = s"https://127.0.0.1:${s.port}/{id}"
      html(url, "-n", "20", "-c", "4", "--http2", "--insecure").map { page =>
        assert(page.contains(s"${engine.describe}, TLSv1.3, 2 handshakes"), page)
        assert(page.contains("h2 on 2 connections"))
      }
    }
  }

  test("http://: no TLS rows") {
    server(tls = false).use { s =>
      html(s"http://127.0.0.1:${s.port}/{id}", "-n", "5", "-c", "1").map { page =>
        assert(page.contains("<td>target</td>"), page)
        assert(!page.contains("<td>tls engine</td>") && !page.contains("<td>tls</td>"), page)
      }
    }
  }
