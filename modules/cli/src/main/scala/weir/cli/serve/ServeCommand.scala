package weir.cli.serve

import weir.cli.common.{Console, Exit}
import cats.effect.{ExitCode, IO}
import com.monovore.decline.Opts
import weir.cli.serve.ServeOptions
import weir.http.{DelayServer, ServerConfig}

/** `weir serve`: the seed's delay server, until Ctrl-C.
  *
  * Flow: options → [[ServerConfig]] → [[DelayServer]] (bound) → a line on stderr → serve. Exit 2
  * for bad options or an address that cannot be bound.
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
      .use { server =>
        val limit = ServeOptions.openFileLimit
        val connections = limit.fold("")(n =>
          s"; open-file limit $n, so at most ${config.maxConnections} connections at once (the limit is what stops more; raise it with ulimit -n)"
        )
        Console.error(
          s"weir serve: http://${config.host}:${server.port}/{id}  delay ${config.delay.label} (mean ${config.delay.mean.toMillis} ms), seed ${config.seed}" +
            s"${ServeOptions.describeFaults(config)}, ${config.threads} event loops$connections"
        ) >> IO.never[ExitCode]
      }
      .handleErrorWith { e =>
        Console
          .error(s"weir serve: cannot serve on ${config.host}:${config.port}: ${e.getMessage}")
          .as(Exit.BadInput)
      }
