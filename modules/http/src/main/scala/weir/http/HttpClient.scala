package weir.http

import cats.effect.kernel.{Async, Resource}
import cats.syntax.all.*
import io.netty.bootstrap.Bootstrap
import io.netty.channel.{ChannelInitializer, ChannelOption, EventLoop, EventLoopGroup}
import io.netty.channel.socket.SocketChannel
import java.util.concurrent.ConcurrentHashMap
import scala.concurrent.duration.FiniteDuration
import scala.jdk.CollectionConverters.*

/** The load client: HTTP/1.1 over keep-alive connections that are reused, one request at a time
  * each, on Netty (native epoll on Linux).
  *
  * Connections are opened on demand and kept idle per host and port for the next request, so a load
  * with at most `c` requests in flight opens at most `c` connections to one host. New connections
  * are spread over the event loops in turn; a request sent from an event loop's thread reuses a
  * connection of that loop when one is idle (see [[IdleConnections]]).
  */
final class HttpClient[F[_]] private (
    bootstrap: Bootstrap,
    loops: Array[EventLoop],
    timeout: FiniteDuration
)(using F: Async[F])
    extends Requester[F]:

  private val idle = new ConcurrentHashMap[(String, Int), IdleConnections]()
  @volatile private var lastPool: IdleConnections | Null = null

  /** Sends one request; the status code, or the error it ended with (see [[ErrorClass.of]]). Never
    * fails. Cancelling it before its answer closes its connection.
    */
  def send(target: Target, spec: RequestSpec): F[Either[Throwable, Int]] =
    acquire(target).flatMap { conn =>
      F.async[Int] { cb =>
        F.delay {
          val exchange = new Exchange(target, conn, cb)
          conn.send(target, spec, timeout.toNanos, exchange)
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

  /** How many connections to `host:port` are idle on each event loop. */
  private[http] def idleByLoop(host: String, port: Int): Seq[Int] =
    Option(idle.get((host, port))).fold(loops.toSeq.map(_ => 0))(_.countsByLoop)

  /** Opens a connection to `host:port` and closes it: fails when nothing answers there. */
  def probe(host: String, port: Int): F[Unit] =
    Transport.await[F](bootstrap.connect(host, port)).flatMap(ch => F.delay(ch.close()).void)

  /** The idle connections to the target's host and port (one lookup per host while it repeats). */
  private def pool(target: Target): IdleConnections =
    val last = lastPool
    if last != null && last.port == target.port && last.host == target.host then last
    else
      val found = idle.computeIfAbsent(
        (target.host, target.port),
        _ => new IdleConnections(target.host, target.port, loops)
      )
      lastPool = found
      found

  private def acquire(target: Target): F[ClientConnection] =
    F.delay(pool(target).take()).flatMap { conn =>
      if conn != null then F.pure(conn)
      else
        Transport
          .await[F](bootstrap.connect(target.host, target.port))
          .map(_.pipeline.get(classOf[ClientConnection]))
    }

  private def release(target: Target, conn: ClientConnection): Unit =
    if conn.usable then pool(target).offer(conn)

  private def closeAll: F[Unit] = F.delay(idle.values.forEach(_.foreach(_.reset())))

object HttpClient:

  /** A client on `threads` event loops whose requests time out after `timeout` (connecting
    * included). Release closes every connection.
    */
  def resource[F[_]](threads: Int, timeout: FiniteDuration)(using
      F: Async[F]
  ): Resource[F, HttpClient[F]] =
    Transport.group[F](threads, "weir-load").flatMap(on(_, timeout))

  /** A client on an event loop group it does not own (e.g. [[EventLoopRuntime]]'s). Release closes
    * every connection, not the group.
    */
  def on[F[_]](group: EventLoopGroup, timeout: FiniteDuration)(using
      F: Async[F]
  ): Resource[F, HttpClient[F]] =
    Resource.make(F.delay(new HttpClient[F](bootstrap(group, timeout), loopsOf(group), timeout)))(
      _.closeAll
    )

  private def loopsOf(group: EventLoopGroup): Array[EventLoop] =
    group.iterator.asScala.collect { case loop: EventLoop => loop }.toArray

  private def bootstrap(group: EventLoopGroup, timeout: FiniteDuration): Bootstrap =
    new Bootstrap()
      .group(group)
      .channel(Transport.clientChannel)
      .option(ChannelOption.TCP_NODELAY, java.lang.Boolean.TRUE)
      .option(
        ChannelOption.CONNECT_TIMEOUT_MILLIS,
        Integer.valueOf(math.max(1L, math.min(timeout.toMillis, Int.MaxValue.toLong)).toInt)
      )
      .handler(
        new ChannelInitializer[SocketChannel]:
          def initChannel(ch: SocketChannel): Unit =
            ch.pipeline.addLast(new ClientConnection(ch)): Unit
      )
