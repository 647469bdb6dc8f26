package weir.cli.queue

import cats.effect.IO
import scala.concurrent.duration.*
import weir.cli.common.TlsArgs
import weir.http.{HttpClient, Target, TlsProblem}

/** `weir worker --http`'s target, checked once before the worker connects or claims anything, as
  * `weir load` checks its own: one connection (and, for `https://`, one handshake, certificates
  * checked as the options say), no request.
  *
  * A certificate the worker would refuse (untrusted, expired, another host's) or a server that does
  * not speak TLS is bad input: every attempt would fail the same way, so the command ends (exit 2)
  * saying which and what to do. Nothing answering is only a warning: a worker may start before the
  * service it calls, and its jobs fail and are retried (with backoff) until the service answers.
  */
object WorkerTarget:

  /** How long the check waits for a connection (and handshake), at most. */
  val ConnectBound: FiniteDuration = 5.seconds

  /** `Left`: why the worker must not start; `Right`: a warning to print, if any. */
  def check(h: JobHandler.Http, timeout: FiniteDuration): IO[Either[String, Option[String]]] =
    val bound = timeout.min(ConnectBound)
    val settings = HttpClient.Settings(timeout).withConnectTimeout(bound).withTls(h.tls)
    HttpClient
      .resource[IO](1, settings)
      .use(_.probe(Target(h.host, h.port, "/", h.secure)))
      .as(Right(None))
      .handleError {
        case TlsProblem.Refused(problem, _) =>
          Left(s"--http: ${h.text}: ${TlsArgs.refusal(problem)}")
        case e =>
          val why = e match
            case _: io.netty.channel.ConnectTimeoutException => s"no connection within $bound"
            case _: java.net.ConnectException                => "connection refused"
            case _ => Option(e.getMessage).getOrElse(e.getClass.getSimpleName)
          Right(
            Some(
              s"--http: nothing answers at ${h.host}:${h.port} yet ($why); its jobs will fail and be retried until it does"
            )
          )
      }
