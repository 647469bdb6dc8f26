package weir.cli.queue

import cats.effect.{Deferred, ExitCode, IO}
import cats.syntax.all.*
import com.comcast.ip4s.{Host, Port}
import com.monovore.decline.Opts
import org.http4s.ember.server.EmberServerBuilder
import scala.concurrent.duration.*
import weir.cli.common.{Console, Exit, Interrupts}
import weir.postgres.PgTarget
import weir.postgres.queue.QueueSchemaName
import weir.postgres.queue.ui.{QueueUi, QueueUiSettings}

/** `weir queue ui`: the queue in a browser ([[QueueUi]]'s routes served by http4s Ember) until
  * Ctrl-C. Loopback by default; any other address needs a token (`--token` or `WEIR_UI_TOKEN`) and
  * refuses to start without one (exit 2). Bad options, a database without the queue and an address
  * that cannot be listened on are one line on stderr and exit 2; Ctrl-C stops it (exit 130).
  */
object UiCommand:

  /** The environment variable a token may come from (kept out of `ps` and shell history). */
  val tokenVariable: String = "WEIR_UI_TOKEN"

  private val host: Opts[Host] = Opts
    .option[String](
      "host",
      "The address to listen on. Default: 127.0.0.1 (this machine only). Any other (0.0.0.0, a LAN address) needs a token.",
      metavar = "HOST"
    )
    .withDefault("127.0.0.1")
    .mapValidated(h =>
      Host
        .fromString(h.trim)
        .toValidNel(
          s"--host: '$h' is not a host name or an IP address (e.g. 127.0.0.1, 0.0.0.0, ::1)"
        )
    )

  private val port: Opts[Port] = Opts
    .option[String]("port", "The port to listen on, 1 to 65535. Default: 8181.", metavar = "PORT")
    .withDefault("8181")
    .mapValidated(p =>
      p.trim.toIntOption
        .filter(n => n >= 1 && n <= 65535)
        .flatMap(Port.fromInt)
        .toValidNel(s"--port: '$p' is not a port: give a number from 1 to 65535 (e.g. --port 8181)")
    )

  private val token: Opts[Option[String]] = Opts
    .option[String](
      "token",
      s"A secret every browser must present once (the address printed ends in ?token=...): at least ${QueueUiSettings.minTokenLength} characters, e.g. $$(openssl rand -hex 16). Or set $tokenVariable. Needed unless --host is a loopback address.",
      metavar = "TOKEN"
    )
    .orNone

  private val readOnly: Opts[Boolean] =
    Opts.flag("read-only", "Show the queue, offer no action, refuse every POST (403).").orFalse

  private val sharedCounts: Opts[Int] = Opts
    .option[String](
      "shared-counts",
      "Seconds the overview's counts are shared by every browser (0 to 3600, default 1): within them, pages and refreshes show the same counts, so dashboards left open cost the database one count per period whatever their number; a refresh shows counts up to a minute old rather than wait for new ones. 0: every request counts afresh.",
      metavar = "SECONDS"
    )
    .withDefault("1")
    .mapValidated(v =>
      v.trim.toIntOption
        .filter(n => n >= 0 && n <= 3600)
        .toValidNel(
          s"--shared-counts: '$v' is not a number of seconds from 0 to 3600 (e.g. --shared-counts 1; 0 counts at every request)"
        )
    )

  val opts: Opts[IO[ExitCode]] = Opts.subcommand(
    "ui",
    s"""The queue in a browser: an overview per queue (jobs by state, completed and failed per second, the oldest job due, pause, workers), job lists with filters, a job's payload and error, live workers, schedules, discarded jobs; and buttons to retry, cancel and delete a job, retry a queue's discarded jobs, pause and resume a queue. Pages refresh themselves every few seconds and work without JavaScript. Nothing is loaded from the internet.
      |
      |Listens on 127.0.0.1 (this machine only) unless --host says otherwise; any other address needs a token (--token or $tokenVariable), and weir refuses to start without one. Ctrl-C stops it.
      |
      |Examples:
      |  weir queue ui --url postgresql://me@localhost/db                 then open http://127.0.0.1:8181/
      |  weir queue ui --read-only --port 9000                            look, never touch
      |  $tokenVariable=$$(openssl rand -hex 16) weir queue ui --host 0.0.0.0   other machines, with the token""".stripMargin
  )(
    (QueueArgs.target(sys.env), QueueArgs.schema, host, port, token, readOnly, sharedCounts).mapN(
      (target, schema, host, port, token, readOnly, shared) =>
        run(
          target,
          schema,
          host,
          port,
          token.orElse(sys.env.get(tokenVariable).filter(_.nonEmpty)),
          readOnly,
          shared
        )
    )
  )

  private def loopback(host: Host): Boolean =
    host.toString match
      case "localhost" => true
      case _ =>
        com.comcast.ip4s.IpAddress.fromString(host.toString).exists(_.isLoopback)

  /** Checks the options, then serves until Ctrl-C. */
  def run(
      target: PgTarget,
      schema: QueueSchemaName,
      host: Host,
      port: Port,
      token: Option[String],
      readOnly: Boolean,
      sharedSeconds: Int = 1
  ): IO[ExitCode] =
    val shared =
      if sharedSeconds == 0 then QueueUiSettings.default.withoutSharedOverview
      else
        QueueUiSettings.default
          .withSharedOverview(sharedSeconds.seconds, (sharedSeconds.seconds).max(1.minute))
          .fold(throw _, identity)
    val base = shared.withSchema(schema).withReadOnly(readOnly)
    val settings =
      token.fold(base.asRight)(t => base.withToken(t).leftMap(e => s"--token: the ${e.getMessage}"))
    settings match
      case Left(message) => Console.error(s"weir queue ui: $message").as(Exit.BadInput)
      case Right(_) if token.isEmpty && !loopback(host) =>
        Console
          .error(
            s"weir queue ui: --host $host lets other machines reach the queue's buttons: give a token with --token TOKEN or $tokenVariable (at least ${QueueUiSettings.minTokenLength} characters, e.g. $$(openssl rand -hex 16)), or listen on 127.0.0.1"
          )
          .as(Exit.BadInput)
      case Right(s) =>
        QueueArgs.connected("queue ui", target, schema)(_ => serve(target, s, host, port, token))

  private def serve(
      target: PgTarget,
      settings: QueueUiSettings,
      host: Host,
      port: Port,
      token: Option[String]
  ): IO[ExitCode] =
    val shown = if host.toString.contains(":") then s"[$host]" else host.toString
    val address = s"http://$shown:$port/"
    val open = token.fold(address)(t =>
      if sys.env.get(tokenVariable).contains(t) then s"$address?token=$$$tokenVariable"
      else s"$address?token=$t"
    )
    val server = for
      db <- QueueUi.pooled[IO](target, 4)
      routes <- cats.effect.Resource.eval(QueueUi.routes[IO](db, settings))
      _ <- EmberServerBuilder
        .default[IO]
        .withHost(host)
        .withPort(port)
        .withHttpApp(routes.orNotFound)
        .withShutdownTimeout(scala.concurrent.duration.Duration.Zero)
        .build
    yield ()
    // Tried first with a plain socket, so that a port in use is one line (Ember's own failure also
    // prints its stack trace from its accept fiber).
    val free = IO.blocking {
      val socket = new java.net.ServerSocket()
      try socket.bind(new java.net.InetSocketAddress(host.toString, port.value))
      finally socket.close()
    }
    def busy(e: Throwable) =
      Console
        .error(
          s"weir queue ui: cannot listen on $shown:$port (--host/--port): ${Option(e.getMessage).getOrElse("in use")}: another program may use it; pick another with --port"
        )
        .as(Exit.BadInput)
    free.attempt.flatMap {
      case Left(e: java.io.IOException) => busy(e)
      case _                            => served(target, settings, server, open)
    }

  private def served(
      target: PgTarget,
      settings: QueueUiSettings,
      server: cats.effect.Resource[IO, Unit],
      open: String
  ): IO[ExitCode] =
    Deferred[IO, Unit].flatMap { stop =>
      (Interrupts.resource(stop.complete(()).void, IO(Runtime.getRuntime.halt(130))) >> server)
        .use { _ =>
          Console.error(
            s"weir queue ui: the queue of ${target.show}${
                if settings.readOnly then " (read-only)" else ""
              } at $open ; Ctrl-C stops it"
          ) >> stop.get.as(Exit.Interrupted)
        }
        .recoverWith { case e: java.net.BindException =>
          Console
            .error(s"weir queue ui: cannot listen (--host/--port): ${e.getMessage}")
            .as(Exit.BadInput)
        }
    }
