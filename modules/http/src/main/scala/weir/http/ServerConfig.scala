package weir.http

import scala.concurrent.duration.Duration
import weir.{Capacity, ConfigError}

/** The delay server's configuration.
  *
  * Defaults: `127.0.0.1:8000`, [[Delay.default]] (uniform 0..3 s), seed 1, no faults, one event
  * loop thread per core, no connection limit, no capacity (every request is served at once), plain
  * HTTP (no TLS), HTTP/1.1 only.
  *
  * Every `withX` is total where its value is a validated type ([[weir.Capacity]]); one whose value
  * has bounds of its own returns `Left(ConfigError)`; none throws.
  *
  * @param port
  *   0 binds an ephemeral port (tests); see [[DelayServer.port]] for the one bound
  */
final case class ServerConfig private (
    host: String,
    port: Int,
    delay: Delay,
    seed: Long,
    faults: Faults,
    threads: Int,
    listener: Option[Long => Unit],
    maxConnections: Option[Capacity],
    capacity: Option[Capacity],
    tls: Option[ServerTls],
    http2: Boolean,
    maxStreams: Option[Capacity]
):

  /** Listens on `h` (trimmed). */
  def withHost(h: String): ServerConfig = copy(host = h.trim)

  /** Listens on port `p` (0: an ephemeral port); `Left` unless in 0..65535. */
  def withPort(p: Int): Either[ConfigError, ServerConfig] =
    if p >= 0 && p <= 65535 then Right(copy(port = p))
    else Left(ConfigError.OutOfRange("port", p.toString, "0..65535"))

  /** Each request is delayed as `d` draws. */
  def withDelay(d: Delay): ServerConfig = copy(delay = d)

  /** The seed of the delays and faults. */
  def withSeed(s: Long): ServerConfig = copy(seed = s)

  /** The faults to inject. */
  def withFaults(f: Faults): ServerConfig = copy(faults = f)

  /** `n` event loop threads; `Left` unless in 1..256. */
  def withThreads(n: Int): Either[ConfigError, ServerConfig] =
    if n > 0 && n <= 256 then Right(copy(threads = n))
    else Left(ConfigError.OutOfRange("event loop threads", n.toString, "1..256"))

  /** Connections beyond `n` are closed as soon as they are accepted, so that the server never runs
    * out of file descriptors (default: no limit).
    */
  def withMaxConnections(n: Capacity): ServerConfig = copy(maxConnections = Some(n))

  /** At most `n` requests are served (have their delay run) at once; later ones wait in arrival
    * order for a place, and their wait adds to their latency: a server with a capacity, for
    * adaptive clients to find (default: none).
    */
  def withCapacity(n: Capacity): ServerConfig = copy(capacity = Some(n))

  /** Serves `https://` with `t`'s certificate and key instead of plain HTTP (default: plain). */
  def withTls(t: ServerTls): ServerConfig = copy(tls = Some(t))

  /** Speaks HTTP/2 too: over TLS, `h2` offered first in ALPN (`http/1.1` for clients that do not
    * offer h2); without TLS, HTTP/2 with prior knowledge (h2c) for a connection that starts with
    * HTTP/2's preface, HTTP/1.1 for any other. Each stream is one request, delayed and counted as
    * an HTTP/1.1 request is (default: HTTP/1.1 only).
    */
  def withHttp2: ServerConfig = copy(http2 = true)

  /** At most `n` HTTP/2 streams at once per connection (SETTINGS_MAX_CONCURRENT_STREAMS); default:
    * no limit advertised (Netty's default, which lets a client open 2^31-1).
    */
  def withMaxStreams(n: Capacity): ServerConfig = copy(maxStreams = Some(n))

  /** Calls `f` with the key (the id) of every `/{id}` request as it arrives, on the event loop: `f`
    * must be quick and thread-safe. For tests and tracing.
    */
  def withListener(f: Long => Unit): ServerConfig = copy(listener = Some(f))

object ServerConfig:

  /** The defaults (see [[ServerConfig]]). */
  val default: ServerConfig =
    new ServerConfig(
      host = "127.0.0.1",
      port = 8000,
      delay = Delay.default,
      seed = 1L,
      faults = Faults.default,
      threads = Runtime.getRuntime.availableProcessors,
      listener = None,
      maxConnections = None,
      capacity = None,
      tls = None,
      http2 = false,
      maxStreams = None
    )

  /** weir's own server for a warm-up: an ephemeral loopback port, one event loop, no delay. */
  private[http] val loopback: ServerConfig =
    default.copy(port = 0, threads = 1, delay = Delay.Fixed(Duration.Zero))
