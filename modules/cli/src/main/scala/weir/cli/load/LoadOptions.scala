package weir.cli.load

import cats.data.ValidatedNel
import cats.syntax.all.*
import com.monovore.decline.Opts
import java.nio.file.Path
import scala.concurrent.duration.*
import weir.{Concurrency, NonNegativeDuration, PositiveDuration}
import weir.cli.common.{Args, Output, RuntimeSyntax, TlsArgs}
import weir.engine.AdaptiveConcurrency
import weir.http.{Delay, Http2Client, LoadConfig, RequestSpec, UrlFile, UrlTemplate}
import weir.runtime.RuntimePreset

/** The options of `weir load`, turned into a [[LoadConfig]] plus how to run and show it. Every bad
  * value is refused here, naming its option (exit 2), before anything runs.
  */
final case class LoadOptions(
    config: LoadConfig,
    runtime: Option[RuntimePreset],
    output: Output,
    maxErrorRate: Double,
    live: Boolean,
    fitConnections: Boolean = false
)

object LoadOptions:

  private val template = Opts.argument[String]("URL-TEMPLATE").orNone
  private val urls = Opts
    .option[Path](
      "urls",
      "Read the URLs from this file, one per line (streamed; blank lines and # comments skipped), instead of a template. A line that is not a URL is counted as an input error with its line number; the load goes on.",
      metavar = "FILE"
    )
    .orNone
  private val requests =
    Args
      .long(
        "requests",
        "Requests to send, ids 0..N-1 in the template's {id} (a URL without {id} is requested N times).",
        "n"
      )
      .orNone

  /** `-c N`, `-c auto` or `-c auto:MIN..MAX`. */
  private val concurrency: Opts[LoadConfig.Concurrency] = Opts
    .option[String](
      "concurrency",
      s"Requests in flight at most: a number (1..${LoadConfig.MaxConcurrency}), or auto (a limit that follows the server: it rises while latency holds and falls when the server queues or fails; auto:MIN..MAX bounds it, default 1..1000). Default: 100.",
      short = "c",
      metavar = "C"
    )
    .withDefault("100")
    .mapValidated(parseConcurrency)

  private[load] def parseConcurrency(text: String): ValidatedNel[String, LoadConfig.Concurrency] =
    val t = text.trim.toLowerCase
    val adaptive =
      if t == "auto" then
        Some(
          AdaptiveConcurrency
            .of(Concurrency(1), Concurrency(1000))
            .leftMap(e => s"the ${e.getMessage}")
        )
      else if t.startsWith("auto:") then
        t.stripPrefix("auto:").split("\\.\\.", -1) match
          case Array(lo, hi) =>
            (lo.trim.toIntOption, hi.trim.toIntOption) match
              case (Some(min), Some(max)) =>
                val bounds = for
                  lo <- Concurrency.from(min)
                  hi <- Concurrency.from(max)
                  a <- AdaptiveConcurrency.of(lo, hi)
                yield a
                Some(bounds.leftMap(e => s"the ${e.getMessage}"))
              case _ => Some(Left("write auto:MIN..MAX, e.g. auto:10..2000"))
          case _ => Some(Left("write auto:MIN..MAX, e.g. auto:10..2000"))
      else None
    adaptive match
      case Some(a) =>
        a.flatMap(auto =>
          if auto.max > LoadConfig.MaxConcurrency then
            Left(s"at most ${LoadConfig.MaxConcurrency} requests in flight")
          else Right(LoadConfig.Concurrency.Adaptive(auto))
        ).leftMap(msg => s"-c/--concurrency: $msg")
          .toValidatedNel
      case None =>
        Args.parseLong("concurrency", t).andThen { n =>
          val refused =
            s"-c/--concurrency must be auto or a number in 1..${LoadConfig.MaxConcurrency}, got $n"
          if n > LoadConfig.MaxConcurrency then refused.invalidNel
          else
            Concurrency
              .from(n.toInt)
              .bimap(_ => refused, LoadConfig.Concurrency.Fixed(_))
              .toValidatedNel
        }

  private val rate = Args
    .number(
      "rate",
      "Open model: start R requests per second (latency counts from the intended start, so a slow server cannot hide its queue). -q as in oha and hey.",
      "R",
      "q"
    )
    .orNone
  private val timeout = Args
    .duration(
      "timeout",
      "Give up on an attempt after this long (connecting included). Default: 30s."
    )
    .withDefault(30.seconds)
  private val duration =
    Args
      .duration(
        "duration",
        "Stop launching after this long (e.g. 30s, 5m, 1h). -z as in oha and hey.",
        "z"
      )
      .orNone
  private val retries = Args
    .int(
      "retries",
      "Try a failed request up to N more times: refused or reset connections, timeouts and 5xx answers, with exponential backoff from 50 ms to 2 s and full jitter. The report counts the retries. Default: 0."
    )
    .withDefault(0)
  private val method = Opts
    .option[String]("method", "HTTP method. Default: GET.", short = "m")
    .withDefault("GET")
  private val headers = Opts
    .options[String]("header", "Extra header 'Name: value' (repeatable).", short = "H")
    .orEmpty
  private val body = Opts.option[String]("body", "Request body (UTF-8).").orNone
  private val maxErrorRate = Args
    .number(
      "max-error-rate",
      "Exit 1 when more than this fraction of requests fail (no response, or status >= 400). The load itself goes on. Default: 0."
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
    .mapValidated(t =>
      Delay.parse(t).leftMap(e => s"--server-delay: ${e.getMessage}").toValidatedNel
    )
    .orNone
  private val serverSeed =
    Args
      .long("server-seed", "The server's --seed, for the finite-N ideal. Default: 1.")
      .withDefault(1L)
  private val grace = Args
    .duration(
      "grace",
      "When stopped (duration, Ctrl-C), wait this long for requests in flight; a second Ctrl-C stops at once. Default: 10s."
    )
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
      s"Threads to run on: event-loop | ${RuntimeSyntax.syntax}. event-loop runs the request fibers on the client's Netty event loops (fastest here); the others as in compare. Default: event-loop.",
      metavar = "RUNTIME"
    )
    .withDefault("event-loop")
    .mapValidated { text =>
      if text.trim.equalsIgnoreCase("event-loop") then None.validNel
      else
        RuntimeSyntax
          .parseRunnable(text)
          .map(Some(_))
          .leftMap(msg => s"--runtime: $msg")
          .toValidatedNel
    }
  private val warmUp = Args
    .long(
      "warm-up",
      "Before the load, send N requests to weir's own in-process server (loopback, no delay; over TLS for an https:// URL, on the same TLS engine), so that the client's code is compiled before the first request to URL-TEMPLATE is timed. Not counted; the report says how long it took. 0: none. Default: 20000."
    )
    .withDefault(20000L)
  private val noLive = Opts.flag("no-live", "No live progress on stderr.").orFalse
  private val connectTimeout = Args
    .duration(
      "connect-timeout",
      "Give up on a new connection (TCP, and for https:// the TLS handshake) after this long; the attempt fails as a timeout. Default: --timeout."
    )
    .orNone
  private val noKeepAlive = Opts
    .flag(
      "no-keepalive",
      "A new connection for every request (each says Connection: close); with https://, a TLS handshake each."
    )
    .orFalse

  private val http2 = Opts
    .flag(
      "http2",
      "Speak HTTP/2: over TLS for https:// (h2 offered in ALPN), with prior knowledge (h2c) for http://. -c then counts streams in flight, spread over --connections; a server that does not speak HTTP/2 is refused before the load (exit 2)."
    )
    .orFalse
  private val connections = Opts
    .option[Int](
      "connections",
      s"With --http2: connections per host that the streams are spread over (1..1024); a server's SETTINGS_MAX_CONCURRENT_STREAMS makes streams beyond it wait. Default: ${Http2Client.DefaultConnections}, or as many as -c needs within the server's limit (Go's net/http: 250 streams each, so 4 for -c 1000).",
      metavar = "N"
    )
    .orNone

  private val request: Opts[RequestSpec] = (method, headers, body).tupled.mapValidated {
    (m, hs, b) =>
      val withMethod = RequestSpec.default.withMethod(m).leftMap(e => s"--method: ${e.getMessage}")
      val withHeaders = hs.foldLeft(withMethod) { (spec, h) =>
        spec.flatMap(s =>
          RequestSpec
            .header(h)
            .flatMap((k, v) => s.withHeader(k, v))
            .leftMap(e => s"--header: ${e.getMessage}")
        )
      }
      withHeaders
        .map(spec => b.fold(spec)(text => spec.withBody(RequestSpec.text(text))))
        .toValidatedNel
  }

  private def source(
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
        else
          UrlFile
            .check(path)
            .map(LoadConfig.Source.UrlFile(_))
            .leftMap(m => s"--urls: $m")
            .toValidatedNel
      case (Some(text), None) =>
        UrlTemplate
          .parse(text)
          .leftMap(e => s"URL-TEMPLATE: ${e.getMessage}")
          .toValidatedNel
          .andThen { t =>
            (n, duration) match
              case (Some(count), _) if count <= 0 =>
                s"-n/--requests must be a positive number, got $count".invalidNel
              case (Some(count), _) => LoadConfig.Source.Template(t, Some(count)).validNel
              case (None, Some(_))  => LoadConfig.Source.Template(t, None).validNel
              case (None, None) =>
                "give -n/--requests (how many) or --duration (how long)".invalidNel
          }

  val opts: Opts[LoadOptions] =
    (
      (template, urls, requests, duration).tupled,
      (concurrency, rate, timeout, retries, request, grace, ioThreads, warmUp).tupled,
      (serverMean, serverDelay, serverSeed).tupled,
      (TlsArgs.opts, connectTimeout, noKeepAlive, http2, connections).tupled,
      runtime,
      Output.opts,
      maxErrorRate,
      noLive
    ).tupled.mapValidated {
      case (
            (t, u, n, d),
            (c, r, timeout, tries, req, g, io, warm),
            (mean, dist, seed),
            (clientTls, connect, noKeep, h2, conns),
            runtime,
            output,
            maxErrors,
            quiet
          ) =>
        source(t, u, n, d).andThen { src =>
          // Each step names its option when its value is refused.
          import Args.named
          val base =
            LoadConfig(src).withRequest(req).withServerDelay(dist, seed).withServerMean(mean)
          val config = for
            withC <- c match
              case LoadConfig.Concurrency.Fixed(k) => named("concurrency", base.withConcurrency(k))
              case LoadConfig.Concurrency.Adaptive(a) =>
                named("concurrency", base.withAdaptiveConcurrency(a))
            withR <- r.fold(withC.asRight[String])(x =>
              withC
                .withRate(x)
                .leftMap(_ =>
                  s"--rate: the rate must be a positive number of requests per second, got $x"
                )
            )
            t <- named("timeout", PositiveDuration.from(timeout, "timeout"))
            withT = withR.withTimeout(t)
            withD <- d.fold(withT.asRight[String])(x =>
              named("duration", PositiveDuration.from(x, "duration")).map(withT.withDuration)
            )
            withTries <- named("retries", withD.withRetries(tries))
            withG <- named("grace", NonNegativeDuration.from(g, "grace period"))
              .map(withTries.withGrace)
            withIo <- named("io-threads", withG.withIoThreads(io))
            withW <- named("warm-up", withIo.withWarmUp(warm))
            withConnect <- connect.fold(withW.asRight[String])(x =>
              named("connect-timeout", PositiveDuration.from(x, "connect timeout"))
                .map(withW.withConnectTimeout)
            )
            withTls = withConnect.withTls(clientTls)
            withH2 <- (h2, conns, noKeep) match
              case (false, Some(_), _) =>
                Left(
                  "--connections: applies to --http2 only (over HTTP/1.1, -c is the connections)"
                )
              case (true, _, true) =>
                Left(
                  "--no-keepalive: HTTP/2 carries many requests per connection; drop --http2 or --no-keepalive"
                )
              case (true, k, _) =>
                named("connections", withTls.withHttp2(k.getOrElse(Http2Client.DefaultConnections)))
              case (false, None, _) => Right(withTls)
          yield if noKeep then withH2.withoutKeepAlive else withH2
          config
            .map(LoadOptions(_, runtime, output, maxErrors, !quiet, h2 && conns.isEmpty))
            .toValidatedNel
        }
    }
