package weir.http

import java.nio.file.Path
import scala.concurrent.duration.*

/** A load: what to request, how many at once, how fast, and when to give up.
  *
  * Defaults: concurrency 100, no rate (closed model), timeout 30 s, no duration limit, `GET`, a 10
  * s grace period for requests in flight when stopped, one event loop per core, stop after
  * `max(concurrency, 100)` refused connections in a row (the server is gone), no warm-up.
  */
final case class LoadConfig private (
    source: LoadConfig.Source,
    concurrency: Int,
    rate: Option[Double],
    timeout: FiniteDuration,
    duration: Option[FiniteDuration],
    request: RequestSpec,
    grace: FiniteDuration,
    ioThreads: Int,
    serverDelay: Option[Delay],
    serverSeed: Long,
    serverMean: Option[FiniteDuration],
    warmUp: Long
):
  def withConcurrency(n: Int): LoadConfig =
    require(n > 0, s"concurrency must be positive, got $n")
    copy(concurrency = n)
  def withRate(perSecond: Option[Double]): LoadConfig = copy(rate = perSecond)
  def withTimeout(t: FiniteDuration): LoadConfig = copy(timeout = t)
  def withDuration(d: Option[FiniteDuration]): LoadConfig = copy(duration = d)
  def withRequest(r: RequestSpec): LoadConfig = copy(request = r)
  def withGrace(g: FiniteDuration): LoadConfig = copy(grace = g)
  def withIoThreads(n: Int): LoadConfig =
    require(n > 0, s"io threads must be positive, got $n")
    copy(ioThreads = n)

  /** Before the load, `n` requests to weir's own in-process server (see [[WarmUp]]), so that the
    * client's code is compiled before the first request to the target is timed. 0: none.
    */
  def withWarmUp(n: Long): LoadConfig =
    require(n >= 0, s"warm-up requests must not be negative, got $n")
    copy(warmUp = n)

  /** The server's delay distribution, when known: the report then gives Little's-law ceilings. */
  def withServerDelay(d: Option[Delay], seed: Long = serverSeed): LoadConfig =
    copy(serverDelay = d, serverSeed = seed)

  /** The server's mean delay alone (when its distribution is unknown): the report then gives the
    * steady-state ceiling only.
    */
  def withServerMean(mean: Option[FiniteDuration]): LoadConfig = copy(serverMean = mean)

  /** The server's mean delay, from its distribution or as given. */
  def meanDelay: Option[FiniteDuration] = serverDelay.map(_.mean).orElse(serverMean)

  /** Refused connections in a row after which the server is taken for gone. */
  def refusedLimit: Long = math.max(concurrency, 100).toLong

  /** A one-line description for the report. */
  def describe: String = source match
    case LoadConfig.Source.Template(t, n) =>
      s"${t.text} × ${if n == Long.MaxValue then "∞" else n.toString}"
    case LoadConfig.Source.UrlFile(p) => s"URLs from $p"

object LoadConfig:

  /** Where the URLs come from. */
  enum Source:
    /** `count` requests to `template` with ids `0 until count` (`Long.MaxValue`: until stopped). */
    case Template(template: UrlTemplate, count: Long)

    /** One request per non-blank line of the file, read as the load goes. */
    case UrlFile(path: Path)

  def apply(source: Source): LoadConfig =
    new LoadConfig(
      source,
      100,
      None,
      30.seconds,
      None,
      RequestSpec.default,
      10.seconds,
      Runtime.getRuntime.availableProcessors,
      None,
      1L,
      None,
      0L
    )
