package weir.cli.load

import cats.effect.{IO, Resource}
import java.time.Instant
import scala.concurrent.duration.*
import weir.cli.serve.Certificates
import weir.http.{Delay, DelayServer, ServerConfig, ServerTls}

/** weir's delay server for the load suites: no delay, one event loop, a free port; with `tls`, a
  * self-signed certificate for 127.0.0.1 made now; with `http2`, h2 too.
  */
object TlsTestServer:

  def apply(tls: Boolean, http2: Boolean = false): Resource[IO, DelayServer] =
    val config = for
      base <- ServerConfig.default.withDelay(Delay.Fixed(Duration.Zero)).withPort(0)
      one <- base.withThreads(1)
      secured <-
        if !tls then Right(one)
        else
          val issued = Certificates.selfSigned(List("127.0.0.1"), Instant.now)
          ServerTls.of(List(issued.certificate), issued.key).map(one.withTls)
    yield if http2 then secured.withHttp2 else secured
    Resource.eval(IO.fromEither(config)).flatMap(DelayServer.resource[IO](_))
