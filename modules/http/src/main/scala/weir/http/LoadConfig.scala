package weir.http

import java.nio.file.Path
import scala.concurrent.duration.*
import weir.Durations
import weir.engine.{AdaptiveConcurrency, RetryPolicy}

/** A load: what to request, how many at once, how fast, how often to retry, and when to give up.
  *
  * Defaults: concurrency 100, no rate (closed model), timeout 30 s, no duration limit, `GET`, no
  * retries, a 10 s grace period for requests in flight when stopped, one event loop per core, stop
  * after `max(concurrency, 100)` refused connections in a row (the server is gone), no warm-up.
  *
  * Every `withX` that can be given a wrong value returns `Left` with a message; none throws.
  */
final case class LoadConfig private (
    source: LoadConfig.Source,
    concurrency: LoadConfig.Concurrency,
    rate: Option[Double],
    timeout: FiniteDuration,
    duration: Option[FiniteDuration],
    request: RequestSpec,
    retries: Int,
    grace: FiniteDuration,
    ioThreads: Int,
    serverDelay: Option[Delay],
    serverSeed: Long,
    serverMean: Option[FiniteDuration],
    warmUp: Long
):
  import LoadConfig.*

  /** At most `n` requests in flight (`1 <= n <=` [[LoadConfig.MaxConcurrency]]). */
  def withConcurrency(n: Int): Either[String, LoadConfig] =
    if n < 1 || n > MaxConcurrency then
      Left(s"the concurrency must be in 1..$MaxConcurrency, got $n")
    else Right(copy(concurrency = Concurrency.Fixed(n)))

  /** A concurrency that adapts to the server (see [[weir.engine.AdaptiveConcurrency]]). */
  def withAdaptiveConcurrency(a: AdaptiveConcurrency): Either[String, LoadConfig] =
    if a.max > MaxConcurrency then Left(s"the most concurrency is $MaxConcurrency, got ${a.max}")
    else Right(copy(concurrency = Concurrency.Adaptive(a)))

  /** Open model: `perSecond` requests started per second; `Left` unless positive and finite. */
  def withRate(perSecond: Double): Either[String, LoadConfig] =
    if perSecond > 0 && perSecond <= 1e9 then Right(copy(rate = Some(perSecond)))
    else Left(s"the rate must be a positive number of requests per second, got $perSecond")

  /** Closed model: a new request as soon as one ends. */
  def withoutRate: LoadConfig = copy(rate = None)

  /** No answer (or no connection) within `t` fails the attempt as a timeout; `t` positive. */
  def withTimeout(t: FiniteDuration): Either[String, LoadConfig] =
    if t > Duration.Zero then Right(copy(timeout = t))
    else Left(s"the timeout must be positive, got ${Durations.show(t)}")

  /** Stop launching after `d` (positive); requests in flight get the grace period. */
  def withDuration(d: FiniteDuration): Either[String, LoadConfig] =
    if d > Duration.Zero then Right(copy(duration = Some(d)))
    else Left(s"the duration must be positive, got ${Durations.show(d)}")

  def withRequest(r: RequestSpec): LoadConfig = copy(request = r)

  /** Failed attempts (refused, reset, timed out, 5xx) are tried up to `n` more times, with
    * exponential backoff and full jitter ([[retryPolicy]]); `0 <= n <= 100`.
    */
  def withRetries(n: Int): Either[String, LoadConfig] =
    if n >= 0 && n <= 100 then Right(copy(retries = n))
    else Left(s"the retries must be in 0..100, got $n")

  /** When stopped, requests in flight get `g` to finish before they are cut off. */
  def withGrace(g: FiniteDuration): Either[String, LoadConfig] =
    if g >= Duration.Zero then Right(copy(grace = g))
    else Left(s"the grace period must not be negative, got ${Durations.show(g)}")

  def withIoThreads(n: Int): Either[String, LoadConfig] =
    if n > 0 && n <= 256 then Right(copy(ioThreads = n))
    else Left(s"the event loop threads must be in 1..256, got $n")

  /** Before the load, `n` requests to weir's own in-process server (see [[WarmUp]]), so that the
    * client's code is compiled before the first request to the target is timed. 0: none.
    */
  def withWarmUp(n: Long): Either[String, LoadConfig] =
    if n >= 0 then Right(copy(warmUp = n))
    else Left(s"the warm-up must be 0 or a number of requests, got $n")

  /** The server's delay distribution, when known: the report then gives Little's-law ceilings. */
  def withServerDelay(d: Option[Delay], seed: Long = serverSeed): LoadConfig =
    copy(serverDelay = d, serverSeed = seed)

  /** The server's mean delay alone (when its distribution is unknown): the report then gives the
    * steady-state ceiling only.
    */
  def withServerMean(mean: Option[FiniteDuration]): LoadConfig = copy(serverMean = mean)

  /** The engine's retry policy for [[retries]]: backoff from 50 ms doubling up to 2 s, with full
    * jitter; only what [[RequestFailed.retryable]] accepts is retried.
    */
  def retryPolicy: RetryPolicy =
    RetryPolicy
      .exponential(retries + 1, 50.millis, 2.seconds)
      .map(_.withRetryable {
        case failed: RequestFailed => failed.retryable
        case _                     => false
      })
      .getOrElse(RetryPolicy.none)

  /** The server's mean delay, from its distribution or as given. */
  def meanDelay: Option[FiniteDuration] = serverDelay.map(_.mean).orElse(serverMean)

  /** Requests in flight at most: the fixed concurrency, or the adaptive one's maximum. */
  def maxConcurrency: Int = concurrency match
    case Concurrency.Fixed(n)    => n
    case Concurrency.Adaptive(a) => a.max

  /** Requests asked for: a template's count; `None` for a URL file or a load until stopped. */
  def planned: Option[Long] = source match
    case Source.Template(_, count) => count
    case Source.UrlFile(_)         => None

  /** Refused connections in a row after which the server is taken for gone. */
  def refusedLimit: Long = math.max(maxConcurrency, 100).toLong

  /** A one-line description for the report. */
  def describe: String = source match
    case Source.Template(t, n) => s"${t.text} × ${n.fold("∞ (until stopped)")(_.toString)}"
    case Source.UrlFile(p)     => s"URLs from $p"

object LoadConfig:

  /** The most requests in flight a load may ask for: each needs a connection (a descriptor) and a
    * few KB; far beyond what a process may open here.
    */
  val MaxConcurrency: Int = 1000000

  /** Where the URLs come from. */
  enum Source:
    /** Requests to `template` with ids `0 until count`, or `0, 1, ...` until stopped (`None`). */
    case Template(template: UrlTemplate, count: Option[Long])

    /** One request per non-blank line of the file, read as the load goes ([[UrlFile]]). */
    case UrlFile(path: Path)

  /** How many requests may be in flight. */
  enum Concurrency:
    case Fixed(n: Int)
    case Adaptive(settings: AdaptiveConcurrency)

  def apply(source: Source): LoadConfig =
    new LoadConfig(
      source = source,
      concurrency = Concurrency.Fixed(100),
      rate = None,
      timeout = 30.seconds,
      duration = None,
      request = RequestSpec.default,
      retries = 0,
      grace = 10.seconds,
      ioThreads = Runtime.getRuntime.availableProcessors,
      serverDelay = None,
      serverSeed = 1L,
      serverMean = None,
      warmUp = 0L
    )
