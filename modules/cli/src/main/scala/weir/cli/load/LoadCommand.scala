package weir.cli.load

import weir.cli.common.{Console, Exit}
import cats.effect.{ExitCode, IO, Resource}
import cats.effect.unsafe.IORuntime
import io.netty.channel.EventLoopGroup
import com.monovore.decline.Opts
import weir.cli.load.{LoadOptions, LoadRender, LoadView}
import weir.http.{Ending, EventLoopRuntime, HttpClient, LoadConfig, LoadRun}

/** `weir load`: N requests at concurrency C (or at a rate) against a URL template or a file of
  * URLs, in constant memory, with a live view and a final report.
  *
  * Flow: options → [[LoadConfig]] → a probe of the host (exit 2 when nothing answers) → [[LoadRun]]
  * on the chosen runtime (the client's warm-up on weir's own server, then the load; its recorder
  * read by [[LoadView]]) → [[weir.http.LoadReport]] → [[LoadRender]] on stdout. Exit 0 when the
  * error rate is within `--max-error-rate`, 1 otherwise, 2 for bad input. Ctrl-C stops launching,
  * waits up to `--grace` for requests in flight and prints the partial report.
  */
object LoadCommand:

  val opts: Opts[IO[ExitCode]] =
    Opts.subcommand(
      "load",
      "Send N requests at concurrency C to URL-TEMPLATE ({id} becomes 0..N-1), in constant memory, and report rate and latency."
    )(LoadOptions.opts.map(run))

  def run(options: LoadOptions): IO[ExitCode] =
    probe(options.config).flatMap {
      case Some(problem) => Console.error(s"weir load: $problem").as(Exit.BadInput)
      case None          => launch(options)
    }

  private def launch(options: LoadOptions): IO[ExitCode] =
    val config = options.config
    val planned = config.source match
      case LoadConfig.Source.Template(_, n) if n != Long.MaxValue => Some(n)
      case _                                                      => None
    val runtimes: Resource[IO, (Option[EventLoopGroup], IORuntime)] = options.runtime match
      case None         => EventLoopRuntime.resource(config.ioThreads).map((g, rt) => (Some(g), rt))
      case Some(preset) => preset.resource.map(rt => (None, rt))
    runtimes
      .use { (group, runtime) =>
        LoadRun.create[IO](config).flatMap { load =>
          val finish = (report: weir.http.LoadReport) =>
            Console
              .out(LoadRender(options.format, report, options.maxErrorRate))
              .as(
                if report.errorRate <= options.maxErrorRate then Exit.Ok else Exit.Failed
              )
          val program = group.fold(load.run)(load.runOn)
          IO(program.unsafeToFutureCancelable()(runtime)).flatMap { (future, _) =>
            val outcome = LoadCommand.await(future)
            LoadView
              .resource(load, planned, options.live)
              .surround(outcome)
              .flatMap(finish)
              .onCancel(
                load.stop(Ending.Interrupted) >> outcome
                  .flatMap(finish)
                  .void
                  .handleErrorWith(e => Console.error(s"weir load: ${e.getMessage}"))
              )
          }
        }
      }
      .handleErrorWith(e => Console.error(s"weir load: ${e.getMessage}").as(Exit.Failed))

  /** Waits for `future`; unlike `IO.fromFuture`, cancelling the wait does not wait for the future
    * (Ctrl-C must reach the `onCancel` that stops the load at once).
    */
  private def await[A](future: scala.concurrent.Future[A]): IO[A] =
    IO.async[A] { cb =>
      IO {
        future.onComplete(result => cb(result.toEither))(
          scala.concurrent.ExecutionContext.parasitic
        )
        Some(IO.unit)
      }
    }

  /** A message when the template's host cannot be reached (nothing for a URL file). */
  private def probe(config: LoadConfig): IO[Option[String]] = config.source match
    case LoadConfig.Source.UrlFile(_) => IO.none
    case LoadConfig.Source.Template(template, _) =>
      val t = template.target(0)
      HttpClient
        .resource[IO](1, config.timeout)
        .use(_.probe(t.host, t.port))
        .as(None)
        .handleError(e =>
          Some(
            s"URL-TEMPLATE: cannot connect to ${t.host}:${t.port}: ${Option(e.getMessage).getOrElse(e.toString)}"
          )
        )
