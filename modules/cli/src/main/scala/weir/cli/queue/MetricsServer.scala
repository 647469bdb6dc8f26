package weir.cli.queue

import cats.effect.{IO, Resource}
import cats.syntax.all.*
import com.comcast.ip4s.{Host, SocketAddress}
import org.http4s.{Header, HttpApp, Method, Response, Status}
import org.http4s.ember.server.EmberServerBuilder
import org.typelevel.ci.CIString

/** `weir worker --metrics HOST:PORT`: an HTTP server (http4s Ember) answering `GET /metrics` with
  * the page `page` makes at each request (Prometheus text, [[PrometheusText]], served as
  * [[PrometheusText.contentType]]), and 404 to anything else. Bound when the resource is acquired
  * (an address in use fails it), closed on release.
  */
object MetricsServer:

  /** Serves `page` at `http://address/metrics` while the resource is held. */
  def resource(address: SocketAddress[Host], page: IO[String]): Resource[IO, Unit] =
    // As written, not re-rendered: http4s would quote the version ("0.0.4") and upper-case UTF-8.
    val textPlain = Header.Raw(CIString("Content-Type"), PrometheusText.contentType)
    val app = HttpApp[IO] { request =>
      if request.method == Method.GET && request.uri.path.renderString == "/metrics" then
        page.map(text => Response[IO](Status.Ok).withEntity(text).putHeaders(textPlain))
      else IO.pure(Response[IO](Status.NotFound).withEntity("weir worker serves /metrics only\n"))
    }
    EmberServerBuilder
      .default[IO]
      .withHost(address.host)
      .withPort(address.port)
      .withHttpApp(app)
      .withShutdownTimeout(scala.concurrent.duration.Duration.Zero)
      .build
      .map(_ => ())
      .adaptError { case e: java.net.BindException =>
        CannotServe(s"--metrics ${address}: ${Option(e.getMessage).getOrElse("cannot listen")}")
      }

  /** The address cannot be listened on (in use, not this machine's): `message` names the option. */
  final case class CannotServe(message: String) extends Exception(message)

  /** `HOST:PORT` as an address (`[::1]:9100` for IPv6); `Left` says what is wrong. */
  def parse(text: String): Either[String, SocketAddress[Host]] =
    SocketAddress
      .fromString(text)
      .toRight(s"'$text' is not HOST:PORT (e.g. 127.0.0.1:9464)")
      .flatMap(a =>
        if a.port.value == 0 then Left(s"'$text': give a port from 1 to 65535") else Right(a)
      )

  /** A default worth typing: the loopback address and Prometheus's port for weir. */
  val example: String = "127.0.0.1:9464"
