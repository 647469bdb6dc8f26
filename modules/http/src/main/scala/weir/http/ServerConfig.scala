package weir.http

/** The delay server's configuration.
  *
  * Defaults: `127.0.0.1:8000`, [[Delay.default]] (uniform 0..3 s), seed 1, no faults, one event
  * loop thread per core.
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
    maxConnections: Int
):
  def withHost(h: String): ServerConfig = copy(host = h)
  def withPort(p: Int): ServerConfig =
    require(p >= 0 && p <= 65535, s"port must be in 0..65535, got $p")
    copy(port = p)
  def withDelay(d: Delay): ServerConfig = copy(delay = d)
  def withSeed(s: Long): ServerConfig = copy(seed = s)
  def withFaults(f: Faults): ServerConfig = copy(faults = f)
  def withThreads(n: Int): ServerConfig =
    require(n > 0, s"threads must be positive, got $n")
    copy(threads = n)

  /** Connections beyond `n` are closed as soon as they are accepted, so that the server never runs
    * out of file descriptors (default: no limit).
    */
  def withMaxConnections(n: Int): ServerConfig =
    require(n > 0, s"max connections must be positive, got $n")
    copy(maxConnections = n)

  /** Calls `f` with the key (the id) of every `/{id}` request as it arrives, on the event loop: `f`
    * must be quick and thread-safe. For tests and tracing.
    */
  def withListener(f: Long => Unit): ServerConfig = copy(listener = Some(f))

object ServerConfig:
  val default: ServerConfig =
    new ServerConfig(
      "127.0.0.1",
      8000,
      Delay.default,
      1L,
      Faults.default,
      Runtime.getRuntime.availableProcessors,
      None,
      Int.MaxValue
    )
