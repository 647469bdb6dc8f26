package weir.cli.load

import cats.syntax.all.*
import cats.effect.{ExitCode, IO, Resource}
import cats.effect.unsafe.IORuntime
import com.monovore.decline.Opts
import io.netty.channel.EventLoopGroup
import weir.cli.common.{Console, Exit, Interrupts, Invocation, OpenFiles, TlsArgs}
import weir.http.*
import weir.runtime.OnRuntime

/** `weir load`: N requests at concurrency C (fixed or adaptive, or at a rate) against a URL
  * template or a file of URLs, in constant memory, on weir's engine, with a live view and a final
  * report.
  *
  * Flow: options → [[LoadConfig]] → a probe of the host (exit 2 when nothing answers) → [[LoadRun]]
  * on the chosen runtime (the client's warm-up on weir's own server, then the load; the engine's
  * statistics read by [[LoadView]]) → [[LoadReport]] → [[LoadRender]] on stdout (or [[LoadHtml]]'s
  * page, and the page to `--report FILE.html` beside it) → an exit code from its [[Verdict]]: 0 ok,
  * 1 too many failures (`--max-error-rate`), a URL file that stopped being readable or a report
  * file that could not be written, 2 bad input (nothing requested), 130 interrupted. Ctrl-C stops
  * launching and waits up to `--grace` for requests in flight, then prints the report of what ran;
  * a second Ctrl-C cuts them off at once.
  */
object LoadCommand:

  val opts: Opts[Invocation => IO[ExitCode]] =
    Opts.subcommand(
      "load",
      "Send N requests at concurrency C to URL-TEMPLATE ({id} becomes 0..N-1) or to the URLs of a file, in constant memory, and report rate, latency and failures. http:// or https:// (certificates verified against the JDK's trust store; --cacert FILE adds a CA, --insecure verifies nothing; on BoringSSL where it loads, --tls-engine jdk for the JDK's engine); --http2 speaks HTTP/2 (h2 over TLS, h2c with prior knowledge over http://), -c streams over --connections. Examples:\n  weir load 'http://127.0.0.1:8000/{id}' -n 100000 -c 1000\n  weir load https://api.example.com/health -n 2000 -c 50      one URL, 2000 times\n  weir load 'https://127.0.0.1:8443/{id}' -n 10000 -c 100 --cacert /tmp/weir-serve-8443.pem\n  weir load 'https://127.0.0.1:8443/{id}' -n 10000 -c 100 --http2 --connections 2 --cacert /tmp/weir-serve-8443.pem\n  weir load 'http://127.0.0.1:8000/{id}' --duration 1m -c auto --retries 2\n  weir load --urls urls.txt -c 200 --format json\n  weir load 'http://127.0.0.1:8000/{id}' --duration 5m -c 500 --report load.html\nCtrl-C stops launching and waits --grace for requests in flight, then reports; a second Ctrl-C cuts them off. Exit: 0 ok, 1 more failures than --max-error-rate (or the URL file or --report file failed), 2 bad input or nothing to reach, 130 interrupted."
    )(LoadOptions.opts.map(options => run(options, _)))

  def run(options: LoadOptions, invocation: Invocation): IO[ExitCode] =
    val config = options.config
    val warn = OpenFiles
      .warning(config.maxConcurrency.toLong)
      .fold(IO.unit)(w => Console.error(s"weir load: warning: $w"))
    warn >> probe(config).flatMap {
      case Left(problem)    => Console.error(s"weir load: $problem").as(Exit.BadInput)
      case Right(serverMax) => launch(fitted(options, serverMax), invocation)
    }

  /** Under `--http2` without `--connections`: enough connections for `-c` streams within the
    * server's stream limit ([[Http2Client.connectionsFor]]).
    */
  private def fitted(options: LoadOptions, serverMax: Option[Long]): LoadOptions =
    if !options.fitConnections then options
    else
      val k = Http2Client.connectionsFor(options.config.maxConcurrency, serverMax)
      options.config.withHttp2(k).fold(_ => options, c => options.copy(config = c))

  private def launch(options: LoadOptions, invocation: Invocation): IO[ExitCode] =
    val config = options.config
    val runtimes: Resource[IO, (Option[EventLoopGroup], IORuntime)] = options.runtime match
      case None         => EventLoopRuntime.resource(config.ioThreads).map((g, rt) => (Some(g), rt))
      case Some(preset) => preset.resource.map(rt => (None, rt))
    runtimes
      .use { (group, runtime) =>
        LoadRun.create[IO](config).flatMap { load =>
          val program = group.fold(load.run)(load.runOn)
          val interrupts =
            Interrupts.resource(load.stop(Ending.Interrupted), load.stopNow(Ending.Interrupted))
          (interrupts >> LoadView.resource(load, config.planned, options.live))
            .surround(OnRuntime.run(program, runtime))
            .flatMap(finish(options, invocation, _))
        }
      }
      .handleErrorWith(e =>
        Console.error(s"weir load: ${Option(e.getMessage).getOrElse(e.toString)}").as(Exit.Failed)
      )

  private def finish(
      options: LoadOptions,
      invocation: Invocation,
      report: LoadReport
  ): IO[ExitCode] =
    val max = options.maxErrorRate
    val printed = options.output
      .emit("weir load", invocation, LoadRender(_, report, max), LoadHtml(report, max, _))
    printed.flatMap { written =>
      val code = outcome(report, max)
      if written then code else code.map(c => if c == Exit.Ok then Exit.Failed else c)
    }

  /** The exit code of `report`'s verdict (saying why when nothing was requested). */
  private def outcome(report: LoadReport, max: Double): IO[ExitCode] =
    report.verdict(max) match
      case Verdict.Ok                  => IO.pure(Exit.Ok)
      case Verdict.TooManyErrors(_, _) => IO.pure(Exit.Failed)
      case Verdict.Interrupted         => IO.pure(Exit.Interrupted)
      case Verdict.NothingSent =>
        Console
          .error(
            "weir load: nothing was requested: the URL file holds no URL (every line blank or a # comment)"
          )
          .as(Exit.BadInput)

  /** A message when the template's host cannot be reached, or for `https://` its TLS handshake
    * fails (a certificate refused: which problem, and what to do about it), or under `--http2` it
    * does not speak HTTP/2 (bounded by the connect timeout); nothing for a URL file. Else, under
    * `--http2`, the server's stream limit per connection (`None`: none said).
    */
  private def probe(config: LoadConfig): IO[Either[String, Option[Long]]] = config.source match
    case LoadConfig.Source.UrlFile(_) => IO.pure(Right(None))
    case LoadConfig.Source.Template(template, _) =>
      val t = template.target(0)
      val h2 = config.http2.fold(IO.none[Long])(_ =>
        Http2Client.resource[IO](1, config.client, 1).use(_.probe(t))
      )
      HttpClient
        .resource[IO](1, config.client)
        .use(_.probe(t))
        .>>(h2)
        .map(Right(_))
        .handleError {
          case refused: Http2Refused =>
            Left(s"URL-TEMPLATE: ${template.text}: ${refused.getMessage}")
          case TlsProblem.Refused(problem, _) =>
            Left(s"URL-TEMPLATE: ${template.text}: ${TlsArgs.refusal(problem)}")
          case e: java.net.UnknownHostException =>
            Left(
              s"URL-TEMPLATE: cannot connect to ${t.host}:${t.port}: no such host (${Option(e.getMessage).getOrElse(t.host)}): check the name in the URL"
            )
          case e =>
            Left(
              s"URL-TEMPLATE: cannot connect to ${t.host}:${t.port}: ${Option(e.getMessage).getOrElse(e.toString)} (is the server running?)"
            )
        }
