package weir.http

import cats.effect.kernel.{Async, Resource}
import cats.syntax.all.*
import io.netty.bootstrap.Bootstrap
import io.netty.channel.{Channel, ChannelInitializer, ChannelOption, EventLoop, EventLoopGroup}
import io.netty.channel.socket.SocketChannel
import io.netty.handler.ssl.{SslContext, SslHandler}
import io.netty.util.AttributeKey
import java.security.cert.X509Certificate
import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.atomic.AtomicReference
import scala.concurrent.duration.FiniteDuration
import scala.jdk.CollectionConverters.*

/** The load client: HTTP/1.1 over keep-alive connections that are reused, one request at a time
  * each, on Netty (native epoll on Linux); `https://` targets over TLS ([[ClientTls]]).
  *
  * Connections are opened on demand and kept idle per host, port and scheme for the next request,
  * so a load with at most `c` requests in flight opens at most `c` connections to one host. New
  * connections are spread over the event loops in turn; a request sent from an event loop's thread
  * reuses a connection of that loop when one is idle (see [[IdleConnections]]). Without keep-alive
  * ([[HttpClient.Settings.withoutKeepAlive]]) every request has a connection of its own.
  *
  * A TLS connection is used once its handshake has succeeded; every connection shares the client's
  * one TLS context (and so the engine's client session cache). That context is built on the first
  * `https://` connection (thread-safe, once): a client that only speaks plain HTTP never resolves
  * its TLS engine nor loads BoringSSL. A context that cannot be built fails that connection's
  * request (and is tried again on the next).
  *
  * At most [[HttpClient.Settings.handshakes]] new `https://` connections connect and handshake at
  * once (default 32 per core; why that many: `HandshakeBound.default`); the others wait their turn,
  * in order, before they connect, so at c = 1 000 the first handshakes end at once instead of all
  * of them ending late. A connection's connect timeout starts when its turn comes.
  */
final class HttpClient[F[_]] private (
    bootstrap: Bootstrap,
    loops: Array[EventLoop],
    settings: HttpClient.Settings,
    private[http] val handshaking: HandshakeBound[F]
)(using F: Async[F])
    extends Requester[F]:

  private val timeout = settings.timeout
  private val sessions = new TlsSessions.Counter(() => settings.tls.engine)
  @volatile private var contextBuilt = false
  private lazy val tls: SslContext =
    val context = settings.tls.context()
    contextBuilt = true
    context

  override private[weir] def prepareTls(): Unit = tls: Unit

  /** True once the client has built its TLS context (its first `https://` connection). */
  private[http] def tlsContextBuilt: Boolean = contextBuilt
  private val idle = new ConcurrentHashMap[(String, Int, Boolean), IdleConnections]()
  @volatile private var lastPool: IdleConnections | Null = null

  /** Sends one request; the status code, or the error it ended with (see [[ErrorClass.of]]). Never
    * fails. Cancelling it before its answer closes its connection.
    */
  def send(target: Target, spec: RequestSpec): F[Either[Throwable, Int]] =
    acquire(target).flatMap { conn =>
      F.async[Int] { cb =>
        F.delay {
          val exchange = new Exchange(target, conn, cb)
          conn.send(target, spec, timeout.toNanos, !settings.keepAlive, exchange)
          Some(F.delay(if !exchange.answered then conn.abort()))
        }
      }
    }.attempt

  /** The end of one request: an answered request's connection goes back to the pool at once, on its
    * loop, before the fiber resumes. Once answered, cancelling the request no longer closes the
    * connection (another request may already be using it).
    */
  private final class Exchange(
      target: Target,
      conn: ClientConnection,
      resume: Either[Throwable, Int] => Unit
  ) extends (Either[Throwable, Int] => Unit):
    @volatile var answered = false
    def apply(result: Either[Throwable, Int]): Unit =
      if result.isRight then
        answered = true
        release(target, conn)
      resume(result)

  /** The handshakes of the load's TLS connections so far (the probe's not counted); `None` before
    * the first.
    */
  override def tlsSessions: Option[TlsSessions] = sessions.snapshot

  /** How many connections to `host:port` (plain HTTP) are idle on each event loop. */
  private[http] def idleByLoop(host: String, port: Int): Seq[Int] =
    Option(idle.get((host, port, false))).fold(loops.toSeq.map(_ => 0))(_.countsByLoop)

  /** Opens a connection to `host:port` and closes it: fails when nothing answers there. */
  def probe(host: String, port: Int): F[Unit] = probe(Target(host, port, "/"))

  /** Opens a connection to the target's host and port, with a TLS handshake for `https://`, and
    * closes it. Fails when nothing answers there, and with [[TlsProblem.Refused]] (saying which
    * problem) when the handshake fails.
    */
  def probe(target: Target): F[Unit] =
    if !target.secure then
      Transport
        .await[F](bootstrap.connect(target.host, target.port))
        .flatMap(ch => F.delay(ch.close()).void)
    else
      F.delay(new AtomicReference[List[X509Certificate]](Nil)).flatMap { seen =>
        val observing = F.delay(settings.tls.context(chain => seen.set(chain.toList)))
        observing.flatMap { context =>
          connect(target, context).attempt.flatMap {
            case Right(ch) => F.delay(ch.close()).void
            case Left(e) =>
              F.realTimeInstant.flatMap { now =>
                val chain = seen.get
                if chain.isEmpty && !e.isInstanceOf[javax.net.ssl.SSLException] then F.raiseError(e)
                else
                  F.raiseError(
                    TlsProblem.Refused(TlsProblem.of(e, target.host, chain, now), e)
                  )
              }
          }
        }
      }

  /** The idle connections to the target's host, port and scheme (one lookup per host while it
    * repeats).
    */
  private def pool(target: Target): IdleConnections =
    val last = lastPool
    if last != null && last.port == target.port && last.host == target.host &&
      last.secure == target.secure
    then last
    else
      val found = idle.computeIfAbsent(
        (target.host, target.port, target.secure),
        _ => new IdleConnections(target.host, target.port, target.secure, loops)
      )
      lastPool = found
      found

  private def acquire(target: Target): F[ClientConnection] =
    F.delay(if settings.keepAlive then pool(target).take() else null).flatMap { conn =>
      if conn != null then F.pure(conn)
      else
        connect(target, tls).map { ch =>
          if target.secure then sessions.completed(ch.attr(HttpClient.TlsHandler).get)
          ch.pipeline.get(classOf[ClientConnection])
        }
    }

  /** A new connection to the target; over TLS with `context` (evaluated for `https://` only) once
    * its handshake has succeeded (else the handshake's error, the channel closed).
    */
  private def connect(target: Target, context: => SslContext): F[Channel] =
    if !target.secure then Transport.await[F](bootstrap.connect(target.host, target.port))
    else
      F.delay(context).flatMap { tls =>
        val secure =
          bootstrap.clone().handler(HttpClient.initializer(Some((tls, target, settings))))
        handshaking(Transport.await[F](secure.connect(target.host, target.port)).flatMap { ch =>
          Transport
            .handshake[F](ch.attr(HttpClient.TlsHandler).get)
            .onError(_ => F.delay(ch.close()).void)
            .as(ch)
        })
      }

  private def release(target: Target, conn: ClientConnection): Unit =
    if conn.usable && settings.keepAlive then pool(target).offer(conn)

  private def closeAll: F[Unit] = F.delay(idle.values.forEach(_.foreach(_.reset())))

object HttpClient:

  /** How the client sends: the request timeout, the connect timeout, TLS, keep-alive.
    *
    * Defaults: requests time out after `timeout` (connecting included, as the connect timeout is
    * the same by default), certificates checked against the JDK's trust store
    * ([[ClientTls.default]]), keep-alive connections, at most 32 TLS connects and handshakes at
    * once per core (`handshakes`).
    *
    * @param connectTimeout
    *   a new connection (its TLS handshake included) must be up within this, from when its turn to
    *   connect comes (`handshakes`); `None`: `timeout`
    * @param handshakes
    *   at most this many `https://` connections connect and handshake at once; the others wait
    */
  final case class Settings private (
      timeout: FiniteDuration,
      connectTimeout: Option[FiniteDuration],
      tls: ClientTls,
      keepAlive: Boolean,
      handshakes: Int
  ):
    /** No answer within `t` (from the send) fails the request as a timeout. */
    def withTimeout(t: FiniteDuration): Settings = copy(timeout = t)

    /** A new connection (TCP, then TLS) must be up within `t`, else the request fails as a timeout.
      */
    def withConnectTimeout(t: FiniteDuration): Settings = copy(connectTimeout = Some(t))

    /** How servers' certificates are checked. */
    def withTls(t: ClientTls): Settings = copy(tls = t)

    /** A connection per request: each request says `Connection: close`, and its connection is
      * closed (with a reset, so that no TIME_WAIT entry holds a port) once it is answered.
      */
    def withoutKeepAlive: Settings = copy(keepAlive = false)

    /** At most `n` TLS connects and handshakes at once (default: 32 per core); for tests. */
    private[http] def withHandshakes(n: Int): Settings = copy(handshakes = math.max(1, n))

    /** The connect timeout in effect, in milliseconds (at least 1). */
    private[http] def connectMillis: Int =
      val t = connectTimeout.getOrElse(timeout)
      math.max(1L, math.min(t.toMillis, Int.MaxValue.toLong)).toInt

  object Settings:
    /** The defaults (see [[Settings]]) with requests timing out after `timeout`. */
    def apply(timeout: FiniteDuration): Settings =
      new Settings(timeout, None, ClientTls.default, keepAlive = true, HandshakeBound.default)

  /** A client on `threads` event loops whose requests time out after `timeout` (connecting
    * included). Release closes every connection.
    */
  def resource[F[_]](threads: Int, timeout: FiniteDuration)(using
      F: Async[F]
  ): Resource[F, HttpClient[F]] = resource(threads, Settings(timeout))

  /** A client on `threads` event loops that sends as `settings` say. Release closes every
    * connection.
    */
  def resource[F[_]](threads: Int, settings: Settings)(using
      F: Async[F]
  ): Resource[F, HttpClient[F]] =
    Transport.group[F](threads, "weir-load").flatMap(on(_, settings))

  /** A client on an event loop group it does not own (e.g. [[EventLoopRuntime]]'s). Release closes
    * every connection, not the group.
    */
  def on[F[_]](group: EventLoopGroup, timeout: FiniteDuration)(using
      F: Async[F]
  ): Resource[F, HttpClient[F]] = on(group, Settings(timeout))

  /** [[on]] with `settings`. */
  def on[F[_]](group: EventLoopGroup, settings: Settings)(using
      F: Async[F]
  ): Resource[F, HttpClient[F]] =
    Resource.make(HandshakeBound[F](settings.handshakes).map { bound =>
      new HttpClient[F](bootstrap(group, settings), loopsOf(group), settings, bound)
    })(_.closeAll)

  private def loopsOf(group: EventLoopGroup): Array[EventLoop] =
    group.iterator.asScala.collect { case loop: EventLoop => loop }.toArray

  private def bootstrap(group: EventLoopGroup, settings: Settings): Bootstrap =
    new Bootstrap()
      .group(group)
      .channel(Transport.clientChannel)
      .option(ChannelOption.TCP_NODELAY, java.lang.Boolean.TRUE)
      .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, Integer.valueOf(settings.connectMillis))
      .handler(initializer(None))

  /** A TLS channel's handler, kept beside the pipeline: a handshake that fails closes the channel
    * and empties its pipeline, maybe before the connect's listener looks, and its cause (an
    * untrusted certificate, say) is on the handler's handshake future.
    */
  private val TlsHandler: AttributeKey[SslHandler] = AttributeKey.valueOf("weir.tls")

  /** A new channel's pipeline: for TLS, a handler for the target's host and port (SNI, hostname
    * verification, the session cache's key) with the connect timeout as its handshake timeout; then
    * the [[ClientConnection]].
    */
  private def initializer(
      tls: Option[(SslContext, Target, Settings)]
  ): ChannelInitializer[SocketChannel] =
    new ChannelInitializer[SocketChannel]:
      def initChannel(ch: SocketChannel): Unit =
        tls.foreach { (context, target, settings) =>
          val handler = context.newHandler(ch.alloc, target.host, target.port)
          handler.setHandshakeTimeoutMillis(settings.connectMillis.toLong)
          ch.attr(TlsHandler).set(handler)
          ch.pipeline.addLast(handler)
        }
        ch.pipeline.addLast(new ClientConnection(ch)): Unit
