package weir.cli.serve

import cats.effect.{ExitCode, IO}
import com.monovore.decline.Opts
import weir.cli.common.{Console, Exit, OpenFiles}
import weir.http.{DelayServer, ServerConfig}

/** `weir serve`: the seed's delay server, until Ctrl-C.
  *
  * Flow: options → [[ServerConfig]] → [[DelayServer]] (bound) → a line on stderr → serve. Exit 2
  * for bad options or an address that cannot be bound (the message says why: in use, not an address
  * of this machine, no permission).
  */
object ServeCommand:

  val opts: Opts[IO[ExitCode]] =
    Opts.subcommand(
      "serve",
      "Serve GET /{id} with 'Request {id}' after a random delay (the seed's test server); GET /stats reports in-flight requests; POST /reset zeroes the stats. A path without a number (/) is keyed by arrival: the n-th since start or reset gets the delay of /n."
    )(ServeOptions.opts.map(run))

  def run(config: ServerConfig): IO[ExitCode] =
    DelayServer
      .resource[IO](config)
      .attempt
      .use {
        case Left(e) =>
          Console
            .error(s"weir serve: cannot serve on ${config.host}:${config.port}: ${describe(e)}")
            .as(Exit.BadInput)
        case Right(server) =>
          val connections = OpenFiles.limit.fold("")(n =>
            config.maxConnections.fold("")(max =>
              s"; open-file limit $n, so at most $max connections at once (the limit is what stops more; raise it with ulimit -n)"
            )
          )
          val capacity = config.capacity.fold("")(n => s", serving $n at once (the rest wait)")
          Console.error(
            s"weir serve: http://${config.host}:${server.port}/{id}  delay ${config.delay.label} (mean ${config.delay.mean.toMillis} ms), seed ${config.seed}" +
              s"${ServeOptions.describeFaults(config)}$capacity, ${config.threads} event loops$connections"
          ) >> IO.never[ExitCode]
      }

  /** What went wrong binding, in words (some JDK exceptions have no message). */
  private def describe(e: Throwable): String = e match
    case _: java.net.BindException if String.valueOf(e.getMessage).contains("in use") =>
      "the port is in use (another server, or a weir serve still running)"
    case _: java.nio.channels.UnresolvedAddressException => "the host name does not resolve"
    case _ => Option(e.getMessage).getOrElse(e.getClass.getSimpleName)
