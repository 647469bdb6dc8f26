package weir.cli.serve

import cats.data.ValidatedNel
import cats.syntax.all.*
import com.monovore.decline.Opts
import java.net.{InetAddress, NetworkInterface, UnknownHostException}
import java.nio.file.Path
import weir.Capacity
import weir.cli.common.{Args, OpenFiles, TlsArgs}
import weir.http.{Delay, Faults, ServerConfig, ServerTls, TlsEngine}

/** The options of `weir serve`, turned into a [[ServerConfig]]. Every bad value is refused here,
  * naming its option.
  */
object ServeOptions:

  private val host = Opts
    .option[String]("host", "Address to listen on (of this machine). Default: 127.0.0.1.")
    .withDefault("127.0.0.1")
    .mapValidated(checkHost)

  /** `Right` when `text` is an address this machine can listen on (or a wildcard). */
  private[serve] def checkHost(text: String): ValidatedNel[String, String] =
    val h = text.trim
    val resolved =
      try Right(InetAddress.getByName(h))
      catch
        case _: UnknownHostException =>
          Left(s"--host: '$h' is neither an IP address nor a known host name")
    resolved.flatMap { address =>
      val local = address.isAnyLocalAddress || address.isLoopbackAddress ||
        NetworkInterface.getByInetAddress(address) != null
      if local then Right(h)
      else
        Left(
          s"--host: $h is not an address of this machine; use 127.0.0.1, 0.0.0.0 (every address) or one of its own"
        )
    }.toValidatedNel

  private val port = Args
    .int("port", "Port to listen on (0: any free port). Default: 8000.")
    .withDefault(8000)
  private val delay = Opts
    .option[String](
      "delay",
      s"Delay before each answer: ${Delay.syntax}. Default: 0..3s (mean 1.5 s).",
      metavar = "DIST"
    )
    .withDefault("0..3s")
    .mapValidated(t => Delay.parse(t).leftMap(e => s"--delay: ${e.getMessage}").toValidatedNel)
  private val seed = Args
    .long("seed", "Seed of the delays and faults (request i always gets the same). Default: 1.")
    .withDefault(1L)
  private def fraction(name: String, what: String) = Args
    .number(name, s"Fraction of requests that $what (0..1). Default: 0.", "FRACTION")
    .withDefault(0.0)
  private val errors = fraction("errors", "get a 500")
  private val drops = fraction("drops", "get their connection reset, without an answer")
  private val stalls = fraction("stalls", "are never answered")
  private val maxConnections = Args
    .int(
      "max-connections",
      s"Close connections beyond this many at once, so that descriptors never run out. Default: the open-file limit minus ${OpenFiles.Reserve}."
    )
    .orNone
  private val capacity = Args
    .int(
      "capacity",
      "Serve at most N requests at once; the others wait in arrival order, and their wait adds to their latency (a server for `weir load -c auto` to find). Default: no limit."
    )
    .orNone
  private val http2 = Opts
    .flag(
      "http2",
      "Speak HTTP/2 too, each stream one request (delayed and counted as an HTTP/1.1 one): with --tls, h2 chosen in ALPN when the client offers it (else HTTP/1.1); without, h2c with prior knowledge for a connection that opens with HTTP/2's preface, HTTP/1.1 for any other."
    )
    .orFalse
  private val maxStreams = Args
    .int(
      "max-streams",
      "With --http2: at most N streams at once per connection (SETTINGS_MAX_CONCURRENT_STREAMS); a client's streams beyond it wait. Default: no limit advertised (Netty's default; a client may open 2^31-1)."
    )
    .orNone
  private val threads =
    Args.positiveInt("threads", "Event loop threads.", Runtime.getRuntime.availableProcessors)

  val opts: Opts[ServerConfig] =
    (
      host,
      port,
      delay,
      seed,
      (errors, drops, stalls).tupled,
      threads,
      maxConnections,
      (capacity, http2, maxStreams).tupled
    ).tupled
      .mapValidated { case (h, p, d, s, (e, dr, st), t, max, (cap, h2, streams)) =>
        val limit = max.orElse(
          OpenFiles.limit.map(n =>
            math.max(1L, math.min(n - OpenFiles.Reserve, Int.MaxValue.toLong)).toInt
          )
        )
        val config = for
          faults <- Args.named("errors/--drops/--stalls", Faults.of(e, dr, st))
          base = ServerConfig.default.withHost(h).withDelay(d).withSeed(s).withFaults(faults)
          withPort <- Args.named("port", base.withPort(p))
          withThreads <- Args.named("threads", withPort.withThreads(t))
          withMax <- limit.fold(withThreads.asRight[String])(n =>
            Args
              .named("max-connections", Capacity.from(n, "connection limit"))
              .map(withThreads.withMaxConnections)
          )
          withCap <- cap.fold(withMax.asRight[String])(n =>
            Args.named("capacity", Capacity.from(n, "capacity")).map(withMax.withCapacity)
          )
          withH2 <- (h2, streams) match
            case (false, Some(_)) => Left("--max-streams: applies to --http2 only")
            case (false, None)    => Right(withCap)
            case (true, None)     => Right(withCap.withHttp2)
            case (true, Some(n)) =>
              Args
                .named("max-streams", Capacity.from(n, "stream limit"))
                .map(withCap.withHttp2.withMaxStreams)
        yield withH2
        config.toValidatedNel
      }

  /** How `weir serve` serves: plain HTTP, or TLS with its own certificate or the one given. */
  enum Tls:
    /** Plain HTTP (no `--tls`). */
    case Off

    /** `--tls` without `--cert`: a self-signed certificate made at start, served on `engine`
      * (`--tls-engine`; `None`: the default engine).
      */
    case SelfSigned(engine: Option[TlsEngine])

    /** `--cert FILE --key FILE` (with or without `--tls`), on `tls`'s engine. */
    case Given(tls: ServerTls, from: Path)

  private val tlsFlag = Opts
    .flag(
      "tls",
      "Serve https:// instead of http://: with --cert and --key, their certificate; without, a self-signed certificate made at start (for localhost, 127.0.0.1, ::1 and --host), whose SHA-256 fingerprint is printed and a PEM copy written for clients (weir load --cacert FILE), deleted when the server stops."
    )
    .orFalse
  private val cert = Opts
    .option[Path](
      "cert",
      "TLS: the server's certificate chain (PEM), with --key.",
      metavar = "FILE"
    )
    .orNone
  private val key = Opts
    .option[Path](
      "key",
      "TLS: the certificate's private key (unencrypted PKCS#8 PEM, BEGIN PRIVATE KEY), with --cert.",
      metavar = "FILE"
    )
    .orNone

  /** `--tls`, `--cert FILE`, `--key FILE`, `--tls-engine jdk|openssl`: the files are read (and
    * refused, named) here.
    */
  val tls: Opts[Tls] = (
    tlsFlag,
    cert,
    key,
    TlsArgs.engine("--tls", " ALPN (--http2) and the certificate are the same on both.")
  ).tupled.mapValidated {
    case (false, None, None, Some(_)) =>
      "--tls-engine: applies to --tls only (add --tls, or --cert FILE --key FILE)".invalidNel
    case (false, None, None, None) => Tls.Off.validNel
    case (true, None, None, e)     => Tls.SelfSigned(e).validNel
    case (_, Some(c), Some(k), e) =>
      ServerTls
        .pem(c, k)
        .bimap(e => s"--cert/--key: ${e.getMessage}", t => Tls.Given(e.fold(t)(t.withEngine), c))
        .toValidatedNel
    case (_, Some(_), None, _) =>
      "--cert needs --key FILE (the certificate's private key)".invalidNel
    case (_, None, Some(_), _) => "--key needs --cert FILE (the certificate chain)".invalidNel
  }

  def describeFaults(config: ServerConfig): String =
    val f = config.faults
    if f.none then "" else s", faults: ${f.errors} errors, ${f.drops} drops, ${f.stalls} stalls"
