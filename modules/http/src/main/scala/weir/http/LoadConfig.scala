package weir.http

import java.nio.file.Path
import scala.concurrent.duration.*
import weir.{Attempts, ConfigError, NonNegativeDuration, PositiveDuration}
import weir.engine.{AdaptiveConcurrency, RetryPolicy}

/** A load: what to request, how many at once, how fast, how often to retry, and when to give up.
  *
  * Defaults: concurrency 100, no rate (closed model), timeout 30 s, no duration limit, `GET`, no
  * retries, a 10 s grace period for requests in flight when stopped, one event loop per core, stop
  * after `max(concurrency, 100)` refused connections in a row (the server is gone), no warm-up,
  * certificates checked against the JDK's trust store, connect timeout as the request timeout,
  * keep-alive connections, HTTP/1.1.
  *
  * Every `withX` is total where its value is a validated type (durations); one whose value has
  * bounds of its own returns `Left(ConfigError)`; none throws.
  */
final case class LoadConfig private (
    source: LoadConfig.Source,
    concurrency: LoadConfig.Concurrency,
    rate: Option[Double],
    timeout: PositiveDuration,
    duration: Option[PositiveDuration],
    request: RequestSpec,
    retryPolicy: RetryPolicy,
    grace: NonNegativeDuration,
    ioThreads: Int,
    serverDelay: Option[Delay],
    serverSeed: Long,
    serverMean: Option[FiniteDuration],
    warmUp: Long,
    tls: ClientTls,
    connectTimeout: Option[PositiveDuration],
    keepAlive: Boolean,
    http2: Option[Int]
):
  import LoadConfig.*

  /** At most `n` requests in flight (`1 <= n <=` [[LoadConfig.MaxConcurrency]]). */
  def withConcurrency(n: weir.Concurrency): Either[ConfigError, LoadConfig] =
    if n > MaxConcurrency then
      Left(ConfigError.OutOfRange("concurrency", n.toString, s"1..$MaxConcurrency"))
    else Right(copy(concurrency = Concurrency.Fixed(n)))

  /** A concurrency that adapts to the server (see [[weir.engine.AdaptiveConcurrency]]). */
  def withAdaptiveConcurrency(a: AdaptiveConcurrency): Either[ConfigError, LoadConfig] =
    if a.max > MaxConcurrency then
      Left(ConfigError.OutOfRange("most concurrency", a.max.toString, s"1..$MaxConcurrency"))
    else Right(copy(concurrency = Concurrency.Adaptive(a)))

  /** Open model: `perSecond` requests started per second; `Left` unless positive and finite. */
  def withRate(perSecond: Double): Either[ConfigError, LoadConfig] =
    if perSecond > 0 && perSecond <= 1e9 then Right(copy(rate = Some(perSecond)))
    else Left(ConfigError.OutOfRange("rate", perSecond.toString, "(0, 1e9] requests per second"))

  /** Closed model: a new request as soon as one ends. */
  def withoutRate: LoadConfig = copy(rate = None)

  /** No answer (or no connection) within `t` fails the attempt as a timeout. */
  def withTimeout(t: PositiveDuration): LoadConfig = copy(timeout = t)

  /** A new connection (TCP and, for `https://`, the TLS handshake) must be up within `t`, else the
    * attempt fails as a timeout (default: the request timeout).
    */
  def withConnectTimeout(t: PositiveDuration): LoadConfig = copy(connectTimeout = Some(t))

  /** How `https://` servers' certificates are checked (default: [[ClientTls.default]]). */
  def withTls(t: ClientTls): LoadConfig = copy(tls = t)

  /** HTTP/2 ([[Http2Client]]): the requests in flight are streams spread over `connections`
    * connections per host; `Left` unless in 1..1024.
    */
  def withHttp2(connections: Int): Either[ConfigError, LoadConfig] =
    if connections > 0 && connections <= 1024 then Right(copy(http2 = Some(connections)))
    else Left(ConfigError.OutOfRange("connections", connections.toString, "1..1024"))

  /** A connection per request (see [[HttpClient.Settings.withoutKeepAlive]]). */
  def withoutKeepAlive: LoadConfig = copy(keepAlive = false)

  /** The client's settings for this load. */
  def client: HttpClient.Settings =
    val base = HttpClient.Settings(timeout).withTls(tls)
    val connecting = connectTimeout.fold(base)(t => base.withConnectTimeout(t))
    if keepAlive then connecting else connecting.withoutKeepAlive

  /** True when the load's requests go over TLS (a `https://` template; a URL file may mix). */
  def secure: Boolean = source match
    case Source.Template(t, _) => t.secure
    case Source.UrlFile(_)     => false

  /** Stop launching after `d`; requests in flight get the grace period. */
  def withDuration(d: PositiveDuration): LoadConfig = copy(duration = Some(d))

  /** Every request as `r` says (method, headers). */
  def withRequest(r: RequestSpec): LoadConfig = copy(request = r)

  /** Failed attempts (refused, reset, timed out, 5xx) are tried up to `n` more times, with
    * exponential backoff and full jitter ([[retryPolicy]]); `0 <= n <= 100`.
    */
  def withRetries(n: Int): Either[ConfigError, LoadConfig] =
    if n < 0 || n > 100 then Left(ConfigError.OutOfRange("retries", n.toString, "0..100"))
    else Attempts.from(n + 1).map(a => copy(retryPolicy = retrying(a)))

  /** When stopped, requests in flight get `g` to finish before they are cut off. */
  def withGrace(g: NonNegativeDuration): LoadConfig = copy(grace = g)

  /** `n` event loop threads for the client's connections; `Left` unless in 1..256. */
  def withIoThreads(n: Int): Either[ConfigError, LoadConfig] =
    if n > 0 && n <= 256 then Right(copy(ioThreads = n))
    else Left(ConfigError.OutOfRange("event loop threads", n.toString, "1..256"))

  /** Before the load, `n` requests to weir's own in-process server (see [[WarmUp]]), so that the
    * client's code is compiled before the first request to the target is timed. 0: none.
    */
  def withWarmUp(n: Long): Either[ConfigError, LoadConfig] =
    if n >= 0 then Right(copy(warmUp = n))
    else Left(ConfigError.Negative("warm-up", n.toString))

  /** The server's delay distribution, when known: the report then gives Little's-law ceilings. */
  def withServerDelay(d: Option[Delay], seed: Long = serverSeed): LoadConfig =
    copy(serverDelay = d, serverSeed = seed)

  /** The server's mean delay alone (when its distribution is unknown): the report then gives the
    * steady-state ceiling only.
    */
  def withServerMean(mean: Option[FiniteDuration]): LoadConfig = copy(serverMean = mean)

  /** Failed attempts are tried up to this many more times (see [[withRetries]]). */
  def retries: Int = retryPolicy.maxAttempts - 1

  /** The server's mean delay, from its distribution or as given. */
  def meanDelay: Option[FiniteDuration] = serverDelay.map(_.mean).orElse(serverMean)

  /** Requests in flight at most: the fixed concurrency, or the adaptive one's maximum. */
  def maxConcurrency: weir.Concurrency = concurrency match
    case Concurrency.Fixed(n)    => n
    case Concurrency.Adaptive(a) => a.max

  /** Requests asked for: a template's count; `None` for a URL file or a load until stopped. */
  def planned: Option[Long] = source match
    case Source.Template(_, count) => count
    case Source.UrlFile(_)         => None

  /** Refused connections in a row after which the server is taken for gone. */
  def refusedLimit: Long = math.max(maxConcurrency, 100).toLong

  /** The load that warms the client for this one (see [[WarmUp]]): `requests` to `target`, with
    * this load's request and event loops, closed model, at most `most` in flight, stopping after
    * `within` with a second of grace.
    */
  private[http] def warmingUp(
      target: UrlTemplate,
      most: weir.Concurrency,
      within: PositiveDuration,
      requests: Long
  ): LoadConfig =
    LoadConfig(Source.Template(target, Some(requests))).copy(
      concurrency = Concurrency.Fixed(if maxConcurrency < most then maxConcurrency else most),
      duration = Some(within),
      grace = NonNegativeDuration.seconds(1),
      ioThreads = ioThreads,
      request = request,
      http2 = http2
    )

  /** A one-line description for the report. */
  def describe: String = source match
    case Source.Template(t, n) => s"${t.text} × ${n.fold("∞ (until stopped)")(_.toString)}"
    case Source.UrlFile(p)     => s"URLs from $p"

object LoadConfig:

  /** The most requests in flight a load may ask for: each needs a connection (a descriptor) and a
    * few KB; far beyond what a process may open here.
    */
  val MaxConcurrency: Int = 1000000

  /** The engine's retry policy for `attempts` in all: backoff from 50 ms doubling up to 2 s, with
    * full jitter; only what [[RequestFailed.retryable]] accepts is retried.
    */
  private def retrying(attempts: Attempts): RetryPolicy =
    RetryPolicy
      .exponential(attempts, NonNegativeDuration.millis(50), NonNegativeDuration.seconds(2))
      .withRetryable {
        case failed: RequestFailed => failed.retryable
        case _                     => false
      }

  /** Where the URLs come from. */
  enum Source:
    /** Requests to `template` with ids `0 until count`, or `0, 1, ...` until stopped (`None`). */
    case Template(template: UrlTemplate, count: Option[Long])

    /** One request per non-blank line of the file, read as the load goes ([[UrlFile]]). */
    case UrlFile(path: Path)

  /** How many requests may be in flight. */
  enum Concurrency:
    /** Always `n` in flight at most. */
    case Fixed(n: weir.Concurrency)

    /** A limit that adapts to the server (see [[weir.engine.AdaptiveConcurrency]]). */
    case Adaptive(settings: AdaptiveConcurrency)

  /** A load of `source` with the defaults (see [[LoadConfig]]). */
  def apply(source: Source): LoadConfig =
    new LoadConfig(
      source = source,
      concurrency = Concurrency.Fixed(weir.Concurrency(100)),
      rate = None,
      timeout = PositiveDuration.seconds(30),
      duration = None,
      request = RequestSpec.default,
      retryPolicy = retrying(Attempts.once),
      grace = NonNegativeDuration.seconds(10),
      ioThreads = Runtime.getRuntime.availableProcessors,
      serverDelay = None,
      serverSeed = 1L,
      serverMean = None,
      warmUp = 0L,
      tls = ClientTls.default,
      connectTimeout = None,
      keepAlive = true,
      http2 = None
    )
