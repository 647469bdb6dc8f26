package weir.http

/** The delay server's configuration.
  *
  * Defaults: `127.0.0.1:8000`, [[Delay.default]] (uniform 0..3 s), seed 1, no faults, one event
  * loop thread per core, no connection limit, no capacity (every request is served at once).
  *
  * Every `withX` that can be given a wrong value returns `Left` with a message; none throws.
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
    maxConnections: Option[Int],
    capacity: Option[Int]
):
  def withHost(h: String): ServerConfig = copy(host = h.trim)

  def withPort(p: Int): Either[String, ServerConfig] =
    if p >= 0 && p <= 65535 then Right(copy(port = p))
    else Left(s"the port must be in 0..65535, got $p")

  def withDelay(d: Delay): ServerConfig = copy(delay = d)
  def withSeed(s: Long): ServerConfig = copy(seed = s)
  def withFaults(f: Faults): ServerConfig = copy(faults = f)

  def withThreads(n: Int): Either[String, ServerConfig] =
    if n > 0 && n <= 256 then Right(copy(threads = n))
    else Left(s"the event loop threads must be in 1..256, got $n")

  /** Connections beyond `n` are closed as soon as they are accepted, so that the server never runs
    * out of file descriptors (default: no limit).
    */
  def withMaxConnections(n: Int): Either[String, ServerConfig] =
    if n > 0 then Right(copy(maxConnections = Some(n)))
    else Left(s"the connection limit must be positive, got $n")

  /** At most `n` requests are served (have their delay run) at once; later ones wait in arrival
    * order for a place, and their wait adds to their latency: a server with a capacity, for
    * adaptive clients to find (default: none).
    */
  def withCapacity(n: Int): Either[String, ServerConfig] =
    if n > 0 then Right(copy(capacity = Some(n)))
    else Left(s"the capacity must be positive, got $n")

  /** Calls `f` with the key (the id) of every `/{id}` request as it arrives, on the event loop: `f`
    * must be quick and thread-safe. For tests and tracing.
    */
  def withListener(f: Long => Unit): ServerConfig = copy(listener = Some(f))

object ServerConfig:
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
      capacity = None
    )
