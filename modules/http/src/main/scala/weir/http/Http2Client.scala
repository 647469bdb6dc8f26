package weir.http

import cats.effect.kernel.{Async, Resource}
import cats.syntax.all.*
import io.netty.bootstrap.Bootstrap
import io.netty.channel.{ChannelInitializer, ChannelOption, EventLoopGroup}
import io.netty.channel.socket.SocketChannel
import io.netty.handler.ssl.SslContext
import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.atomic.{AtomicInteger, AtomicLong}
import scala.jdk.CollectionConverters.*

/** The load client over HTTP/2 (`weir load --http2`): every request a stream of its own, spread in
  * turn over `connections` connections per host, port and scheme ([[H2Connection]]): h2 over TLS
  * (ALPN) for `https://`, h2c with prior knowledge for `http://`.
  *
  * Connections are opened on first use, on the group's event loops in turn, and opened again when
  * one closes. A server that does not speak HTTP/2 fails every request with [[Http2Refused]] within
  * the connect timeout; [[probe]] finds that out before a load starts. How many streams one
  * connection carries at once is the server's to say (SETTINGS_MAX_CONCURRENT_STREAMS): streams
  * beyond it wait for one to end.
  *
  * One bridge to the caller's effect per request: [[send]] is one `F.async` whose callback the
  * stream's handler calls on the connection's event loop. Cancelling it resets the stream.
  *
  * The TLS context (offering `h2` in ALPN) is built on the first `https://` connection, as
  * [[HttpClient]]'s is: h2c never resolves a TLS engine.
  */
final class Http2Client[F[_]] private (
    bootstrap: Bootstrap,
    settings: HttpClient.Settings,
    connections: Int
)(using F: Async[F])
    extends Requester[F]:

  private lazy val tls: SslContext = settings.tls.context(alpn = true)

  override private[weir] def prepareTls(): Unit = tls: Unit

  private val sessions = new TlsSessions.Counter(() => settings.tls.engine)

  /** The context for `target`: none for `http://` (h2c). */
  private def contextFor(target: Target): Option[SslContext] = Option.when(target.secure)(tls)

  private val timeoutNanos = settings.timeout.toNanos
  private val pools = new ConcurrentHashMap[(String, Int, Boolean), Pool]()
  private val opened = new ConcurrentHashMap[String, AtomicLong]()

  /** The connections of one host, port and scheme; slot `i` is replaced when its connection dies.
    */
  private final class Pool(target: Target):
    private val slots = new Array[H2Connection | Null](connections)
    private val turn = new AtomicInteger

    def next(): H2Connection =
      val i = Math.floorMod(turn.getAndIncrement(), connections)
      val current = slots(i)
      if current != null && current.usable then current
      else
        slots.synchronized {
          val again = slots(i)
          if again != null && again.usable then again
          else
            val fresh =
              H2Connection.open(
                bootstrap,
                target,
                contextFor(target),
                settings.connectMillis,
                sessions.completed
              )
            fresh.ready.addListener((f: io.netty.util.concurrent.Future[?]) =>
              if f.isSuccess then
                opened.computeIfAbsent(fresh.protocol, _ => new AtomicLong).incrementAndGet(): Unit
            )
            slots(i) = fresh
            fresh
        }

    def closeAll(): Unit = slots.synchronized(slots.foreach(c => if c != null then c.close()))

  private def pool(target: Target): Pool =
    pools.computeIfAbsent((target.host, target.port, target.secure), _ => new Pool(target))

  /** Sends one request on a stream; the status code, or the error it ended with (see
    * [[ErrorClass.of]]). Never fails. Cancelling it before its answer resets its stream.
    */
  def send(target: Target, spec: RequestSpec): F[Either[Throwable, Int]] =
    F.async[Int] { cb =>
      F.delay {
        val deadline = if timeoutNanos > 0 then System.nanoTime + timeoutNanos else Long.MaxValue
        val exchange = new H2Exchange(spec, target, deadline, timeoutNanos, cb)
        pool(target).next().start(exchange)
        Some(F.delay(if !exchange.answered then exchange.cancel()))
      }
    }.attempt

  /** Connections that became ready, by protocol (`h2`, `h2c`), since the client was made. */
  override def protocols: Map[String, Long] =
    opened.asScala.view.mapValues(_.get).toMap

  /** The TLS handshakes of the client's `https://` connections (its probe's not counted); `None`
    * before the first.
    */
  override def tlsSessions: Option[TlsSessions] = sessions.snapshot

  /** Opens one HTTP/2 connection to the target's host and port and closes it: fails when nothing
    * answers there, with the TLS handshake's error (a [[TlsProblem.Refused]] comes from
    * [[HttpClient.probe]], which a caller runs first for `https://`), or with [[Http2Refused]] when
    * the server does not speak HTTP/2. Else the server's SETTINGS_MAX_CONCURRENT_STREAMS (`None`:
    * no limit), for [[Http2Client.connectionsFor]].
    */
  def probe(target: Target): F[Option[Long]] =
    F.async[Option[Long]] { cb =>
      F.delay {
        val conn =
          H2Connection.open(bootstrap, target, contextFor(target), settings.connectMillis, _ => ())
        conn.ready.addListener((f: io.netty.util.concurrent.Future[?]) =>
          conn.close()
          cb(if f.isSuccess then Right(conn.serverMaxStreams) else Left(f.cause))
        )
        Some(F.delay(conn.close()))
      }
    }

  private def closeAll: F[Unit] = F.delay(pools.values.forEach(_.closeAll()))

object Http2Client:

  /** Connections per host when `--connections` is not given: 2, one per event loop of a 2-core
    * machine. Measured 2026-11-26 against `weir serve --http2 --delay 0 --threads 1` (h2c, c = 100,
    * 30 000 requests after a 5 000-request warm-up, both on 2 cores shared with other builds), two
    * rounds: 1 connection 1 913 then 5 060 req/s, 2 connections 5 688 (second round; the first's
    * output was lost), 4 connections 3 144 then 4 510. Few runs on a busy machine: a hint, not a
    * measurement to quote.
    */
  val DefaultConnections: Int = 2

  /** Connections per host for `streams` in flight when none are asked for: [[DefaultConnections]],
    * or more when the server's stream limit (`serverMax`, from [[Http2Client.probe]]) would keep
    * streams waiting: enough for every stream to run (at most 1 024). Go's `net/http` allows 250
    * streams a connection, so `-c 1000` there needs 4; on 2, half the requests waited.
    */
  def connectionsFor(streams: Int, serverMax: Option[Long]): Int =
    serverMax.filter(_ > 0).fold(DefaultConnections) { max =>
      val needed = (streams.toLong + max - 1) / max
      math.min(1024L, math.max(DefaultConnections.toLong, needed)).toInt
    }

  /** A client on `threads` event loops of its own, `connections` per host. Release closes every
    * connection, then the loops.
    */
  def resource[F[_]](threads: Int, settings: HttpClient.Settings, connections: Int)(using
      F: Async[F]
  ): Resource[F, Http2Client[F]] =
    Transport.group[F](threads, "weir-load").flatMap(on(_, settings, connections))

  /** A client on an event loop group it does not own. Release closes every connection. */
  def on[F[_]](group: EventLoopGroup, settings: HttpClient.Settings, connections: Int)(using
      F: Async[F]
  ): Resource[F, Http2Client[F]] =
    Resource.make(F.delay {
      val bootstrap = new Bootstrap()
        .group(group)
        .channel(Transport.clientChannel)
        .option(ChannelOption.TCP_NODELAY, java.lang.Boolean.TRUE)
        .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, Integer.valueOf(settings.connectMillis))
        .handler(
          new ChannelInitializer[SocketChannel]:
            def initChannel(ch: SocketChannel): Unit = ()
        )
      new Http2Client[F](bootstrap, settings, math.max(1, connections))
    })(_.closeAll)
