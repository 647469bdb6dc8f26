package weir.cli.queue

import cats.effect.{IO, Resource}
import io.netty.channel.EventLoopGroup
import java.net.URLEncoder
import java.nio.charset.StandardCharsets.UTF_8
import java.util.concurrent.ThreadLocalRandom
import scala.concurrent.duration.*
import weir.engine.Classified
import weir.http.{ClientTls, Delay, ErrorClass, HttpClient, RequestSpec, Target}
import weir.postgres.queue.Job

/** What `weir worker` does with a job's payload: one of three handlers. */
enum JobHandler:

  /** A GET of the template with `{payload}` replaced by the payload (URL-encoded), on weir's own
    * HTTP client (`https://` when `secure`, certificates checked as `tls` says); a 2xx status
    * completes the job, anything else fails the attempt.
    */
  case Http(
      host: String,
      port: Int,
      parts: Vector[String],
      text: String,
      secure: Boolean,
      tls: ClientTls
  )

  /** Runs `command` with every `{}` in its arguments replaced by the payload, as one argument and
    * never through a shell; exit status 0 completes the job.
    */
  case Exec(command: List[String])

  /** Sleeps a draw of `delay` (a benchmark's stand-in for work). */
  case Sleep(delay: Delay)

  /** True when the handler bounds an attempt by `--timeout` itself (an HTTP request, connect
    * included: it fails as `timeout`); otherwise the worker's engine does (see [[WorkerPlan]]).
    */
  def timesOutItself: Boolean = this match
    case Http(_, _, _, _, _, _) => true
    case _                      => false

  def label: String = this match
    case Http(_, _, _, text, _, _) => s"http $text"
    case Exec(command)             => s"exec ${command.mkString(" ")}"
    case Sleep(delay)              => s"sleep ${delay.label}"

object JobHandler:

  /** `--http`'s template (`http://` or `https://`, checked as `tls` says); `Left` names what is
    * wrong.
    */
  def http(text: String, tls: ClientTls = ClientTls.default): Either[String, JobHandler] =
    if !text.contains("{payload}") then Left(s"--http: '$text' has no {payload}")
    else
      val marker = "WEIRPAYLOAD7f3a"
      Target
        .parse(text.replace("{payload}", marker))
        .left
        .map(e => s"--http: ${e.getMessage}")
        .flatMap { t =>
          if !t.path.contains(marker) then
            Left(s"--http: '$text': {payload} must be in the path or query")
          else Right(Http(t.host, t.port, t.path.split(marker, -1).toVector, text, t.secure, tls))
        }

  /** An attempt that ended badly, counted under `failureClass` (`status-503`, `refused`, `exit-1`).
    */
  final case class Failed(failureClass: String, detail: String)
      extends RuntimeException(detail)
      with Classified

  /** The handler as a function, with what it needs (the HTTP client) for as long as it is used.
    * `timeout` bounds each HTTP request (connect included); the other handlers do not use it (the
    * worker's engine times them out: [[timesOutItself]]). The HTTP client runs on `loops` when
    * given (the event loops that `weir worker --http` computes on, see [[WorkerCommand]]), else on
    * an event loop of its own.
    */
  def resource(
      h: JobHandler,
      timeout: FiniteDuration,
      loops: Option[EventLoopGroup] = None
  ): Resource[IO, Job => IO[Unit]] = h match
    case Http(host, port, parts, _, secure, tls) =>
      val settings = HttpClient.Settings(timeout).withTls(tls)
      val client =
        loops.fold(HttpClient.resource[IO](1, settings))(HttpClient.on[IO](_, settings))
      // The TLS context before the first claim, not while the first jobs' leases run.
      val ready =
        client.evalTap(c => if secure then IO.blocking(c.prepareTls()).attempt.void else IO.unit)
      ready.map { client => job =>
        val encoded = URLEncoder.encode(job.payload, UTF_8).replace("+", "%20")
        val target = Target(host, port, parts.mkString(encoded), secure)
        client.send(target, RequestSpec.default).flatMap {
          case Right(status) if status / 100 == 2 => IO.unit
          case Right(status) => IO.raiseError(Failed(s"status-$status", s"HTTP $status"))
          // Counted as weir load counts it (refused, reset, timeout, tls, ...).
          case Left(error) => IO.raiseError(Failed(ErrorClass.of(error).label, message(error)))
        }
      }
    case Exec(command) => Resource.pure(job => exec(command.map(_.replace("{}", job.payload))))
    case Sleep(delay) =>
      Resource.pure { _ =>
        val nanos = delay.nanos(ThreadLocalRandom.current.nextDouble)
        if nanos <= 0 then IO.unit else IO.sleep(nanos.nanos)
      }

  // `exit 1`, then the end of what the child wrote on stderr, if anything.
  private def exitMessage(code: Int, err: String): String =
    val said = err.trim.takeRight(500)
    if said.isEmpty then s"exit $code" else s"exit $code: $said"

  private def message(error: Throwable): String =
    Option(error.getMessage).getOrElse(error.getClass.getSimpleName)

  // The child's stdout is dropped; the end of its stderr goes into the failure's message.
  private def exec(args: List[String]): IO[Unit] =
    val start = IO.blocking(
      new ProcessBuilder(args*).redirectOutput(ProcessBuilder.Redirect.DISCARD).start()
    )
    Resource.make(start)(p => IO.blocking(if p.isAlive then p.destroyForcibly(): Unit)).use { p =>
      for
        err <- IO.interruptible(new String(p.getErrorStream.readAllBytes(), UTF_8))
        code <- IO.interruptible(p.waitFor())
        _ <- IO
          .raiseWhen(code != 0)(Failed(s"exit-$code", exitMessage(code, err)))
      yield ()
    }
