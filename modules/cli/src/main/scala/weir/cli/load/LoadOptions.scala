package weir.cli.load

import cats.data.ValidatedNel
import cats.syntax.all.*
import com.monovore.decline.Opts
import java.nio.file.{Files, Path}
import scala.concurrent.duration.*
import weir.cli.common.Args
import weir.http.{Delay, LoadConfig, RequestSpec, UrlTemplate}
import weir.runtime.RuntimePreset

/** The options of `weir load`, turned into a [[LoadConfig]] plus how to run and show it. */
final case class LoadOptions(
    config: LoadConfig,
    runtime: Option[RuntimePreset],
    format: Args.Format,
    maxErrorRate: Double,
    live: Boolean
)

object LoadOptions:

  private val template = Opts.argument[String]("URL-TEMPLATE").orNone
  private val urls = Opts
    .option[Path](
      "urls",
      "Read the URLs from this file, one per line (streamed), instead of a template.",
      metavar = "FILE"
    )
    .orNone
  private val requests = Opts
    .option[Long](
      "requests",
      "Requests to send, ids 0..N-1 in the template's {id}.",
      short = "n",
      metavar = "N"
    )
    .orNone
  private val concurrency = Opts
    .option[Int](
      "concurrency",
      "Requests in flight at most. Default: 100.",
      short = "c",
      metavar = "C"
    )
    .withDefault(100)
    .mapValidated(c =>
      if c > 0 then c.validNel
      else s"-c/--concurrency must be a positive integer, got $c".invalidNel
    )
  private val rate = Opts
    .option[Double](
      "rate",
      "Open model: start R requests per second (latency counts from the intended start).",
      metavar = "R"
    )
    .mapValidated(r =>
      if r > 0 && r.isFinite then r.validNel
      else s"--rate must be a positive number, got $r".invalidNel
    )
    .orNone
  private val timeout =
    Args
      .duration("timeout", "Give up on a request after this long. Default: 30s.")
      .withDefault(30.seconds)
  private val duration = Args.duration("duration", "Stop launching after this long.").orNone
  private val method =
    Opts
      .option[String]("method", "HTTP method. Default: GET.", short = "m")
      .withDefault("GET")
      .mapValidated(m => RequestSpec.method(m).leftMap(msg => s"--method: $msg").toValidatedNel)
  private val headers = Opts
    .options[String]("header", "Extra header 'Name: value' (repeatable).", short = "H")
    .orEmpty
    .mapValidated(
      _.traverse(h => RequestSpec.header(h).leftMap(msg => s"--header: $msg").toValidatedNel)
    )
  private val body = Opts.option[String]("body", "Request body (UTF-8).").orNone
  private val maxErrorRate = Opts
    .option[Double](
      "max-error-rate",
      "Exit 1 when more than this fraction of requests fail (no response, or status >= 400). Default: 0."
    )
    .withDefault(0.0)
    .mapValidated(r =>
      if r >= 0 && r <= 1 then r.validNel
      else s"--max-error-rate must be between 0 and 1, got $r".invalidNel
    )
  private val serverMean = Args
    .duration(
      "server-mean-delay",
      "The server's mean delay, e.g. 1.5s: the report adds Little's-law efficiency."
    )
    .orNone
  private val serverDelay = Opts
    .option[String](
      "server-delay",
      s"The server's delay distribution (${Delay.syntax}); adds the finite-N ideal too.",
      metavar = "DIST"
    )
    .mapValidated(t => Delay.parse(t).leftMap(msg => s"--server-delay: $msg").toValidatedNel)
    .orNone
  private val serverSeed = Opts
    .option[Long]("server-seed", "The server's --seed, for the finite-N ideal. Default: 1.")
    .withDefault(1L)
  private val grace = Args
    .duration("grace", "When stopped, wait this long for requests in flight. Default: 10s.")
    .withDefault(10.seconds)
  private val ioThreads = Args.positiveInt(
    "io-threads",
    "Netty event loop threads of the client.",
    Runtime.getRuntime.availableProcessors
  )

  /** `--runtime`: the presets of [[Args.runtime]] (same syntax and messages) plus `event-loop`, the
    * default, which computes on the client's Netty event loops (measured in ADR 0003).
    */
  private val runtime: Opts[Option[RuntimePreset]] = Opts
    .option[String](
      "runtime",
      s"Threads to run on: event-loop | ${RuntimePreset.syntax}. event-loop runs the request fibers on the client's Netty event loops (fastest here); the others as in compare. Default: event-loop.",
      metavar = "RUNTIME"
    )
    .withDefault("event-loop")
    .mapValidated { text =>
      if text.trim.equalsIgnoreCase("event-loop") then None.validNel
      else RuntimePreset.parse(text).map(Some(_)).leftMap(msg => s"--runtime: $msg").toValidatedNel
    }
  private val warmUp = Opts
    .option[Long](
      "warm-up",
      "Before the load, send N requests to weir's own in-process server (loopback, no delay), so that the client's code is compiled before the first request to URL-TEMPLATE is timed. Not counted; the report says how long it took. 0: none. Default: 20000.",
      metavar = "N"
    )
    .withDefault(20000L)
    .mapValidated(w =>
      if w >= 0 then w.validNel
      else s"--warm-up must be 0 or a positive number of requests, got $w".invalidNel
    )
  private val noLive = Opts.flag("no-live", "No live progress on stderr.").orFalse

  private val request: Opts[RequestSpec] = (method, headers, body).mapN { (m, hs, b) =>
    val withHeaders =
      hs.foldLeft(RequestSpec.default.withMethod(m))((spec, h) => spec.withHeader(h._1, h._2))
    b.fold(withHeaders)(text => withHeaders.withBody(RequestSpec.text(text)))
  }

  // `--duration` is read once, here, so that `--help` lists it once.
  private val sourceAndDuration: Opts[(LoadConfig.Source, Option[FiniteDuration])] =
    (template, urls, requests, duration).tupled.mapValidated { (t, u, n, d) =>
      validSource(t, u, n, d).map(_ -> d)
    }

  private def validSource(
      template: Option[String],
      urls: Option[Path],
      n: Option[Long],
      duration: Option[FiniteDuration]
  ): ValidatedNel[String, LoadConfig.Source] =
    (template, urls) match
      case (Some(_), Some(_)) => "give either URL-TEMPLATE or --urls, not both".invalidNel
      case (None, None) =>
        "URL-TEMPLATE is missing: write e.g. weir load http://127.0.0.1:8000/{id} -n 1000 -c 100".invalidNel
      case (None, Some(path)) =>
        if n.isDefined then
          "-n/--requests counts template ids; with --urls every line is one request".invalidNel
        else if !Files.isReadable(path) then s"--urls: cannot read $path".invalidNel
        else LoadConfig.Source.UrlFile(path).validNel
      case (Some(text), None) =>
        UrlTemplate.parse(text).leftMap(msg => s"URL-TEMPLATE: $msg").toValidatedNel.andThen { t =>
          (n, duration) match
            case (Some(count), _) if count <= 0 =>
              s"-n/--requests must be a positive integer, got $count".invalidNel
            case (Some(_), _) if !t.hasId =>
              s"URL-TEMPLATE '$text' has no {id}: with -n each request needs its own id (e.g. http://host:8000/{id})".invalidNel
            case (Some(count), _) => LoadConfig.Source.Template(t, count).validNel
            case (None, Some(_))  => LoadConfig.Source.Template(t, Long.MaxValue).validNel
            case (None, None) => "give -n/--requests (how many) or --duration (how long)".invalidNel
        }

  val opts: Opts[LoadOptions] =
    (
      sourceAndDuration,
      (concurrency, rate, timeout, request, grace, ioThreads, warmUp).tupled,
      (serverMean, serverDelay, serverSeed).tupled,
      runtime,
      Args.format,
      maxErrorRate,
      noLive
    ).mapN {
      case (
            (src, d),
            (c, r, t, req, g, io, warm),
            (mean, dist, seed),
            runtime,
            format,
            maxErrors,
            quiet
          ) =>
        val config = LoadConfig(src)
          .withConcurrency(c)
          .withRate(r)
          .withTimeout(t)
          .withDuration(d)
          .withRequest(req)
          .withGrace(g)
          .withIoThreads(io)
          .withWarmUp(warm)
          .withServerDelay(dist, seed)
          .withServerMean(mean)
        LoadOptions(config, runtime, format, maxErrors, !quiet)
    }
