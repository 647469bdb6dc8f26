package weir.http

import cats.effect.kernel.{Async, Resource}
import cats.syntax.all.*
import io.netty.bootstrap.Bootstrap
import io.netty.channel.{ChannelInitializer, ChannelOption, EventLoopGroup}
import io.netty.channel.socket.SocketChannel
import io.netty.handler.codec.http.HttpClientCodec
import java.util.concurrent.{ConcurrentHashMap, ConcurrentLinkedQueue}
import scala.concurrent.duration.FiniteDuration

/** The load client: HTTP/1.1 over keep-alive connections that are reused, one request at a time
  * each, on Netty (native epoll on Linux).
  *
  * Connections are opened on demand and kept idle per host and port for the next request, so a load
  * with at most `c` requests in flight opens at most `c` connections to one host.
  */
final class HttpClient[F[_]] private (bootstrap: Bootstrap, timeout: FiniteDuration)(using
    F: Async[F]
):

  private val idle = new ConcurrentHashMap[(String, Int), ConcurrentLinkedQueue[ClientConnection]]()

  /** Sends one request; the status code, or the error it ended with (see [[ErrorClass.of]]). Never
    * fails. Cancelling it closes its connection.
    */
  def send(target: Target, spec: RequestSpec): F[Either[Throwable, Int]] =
    acquire(target).flatMap { conn =>
      F.async[Int] { cb =>
        F.delay {
          conn.send(spec.build(target), timeout.toNanos, cb)
          Some(F.delay(conn.abort()))
        }
      }.flatTap(_ => F.delay(release(target, conn)))
    }.attempt

  /** Opens a connection to `host:port` and closes it: fails when nothing answers there. */
  def probe(host: String, port: Int): F[Unit] =
    Transport.await[F](bootstrap.connect(host, port)).flatMap(ch => F.delay(ch.close()).void)

  private def pool(target: Target): ConcurrentLinkedQueue[ClientConnection] =
    idle.computeIfAbsent(
      (target.host, target.port),
      _ => new ConcurrentLinkedQueue[ClientConnection]()
    )

  private def acquire(target: Target): F[ClientConnection] =
    F.delay {
      val queue = pool(target)
      var conn = queue.poll()
      while conn != null && !conn.usable do conn = queue.poll()
      conn
    }.flatMap { conn =>
      if conn != null then F.pure(conn)
      else
        Transport
          .await[F](bootstrap.connect(target.host, target.port))
          .map(_.pipeline.get(classOf[ClientConnection]))
    }

  private def release(target: Target, conn: ClientConnection): Unit =
    if conn.usable then pool(target).offer(conn): Unit

  private def closeAll: F[Unit] = F.delay(idle.values.forEach(_.forEach(_.reset())))

object HttpClient:

  /** A client on `threads` event loops whose requests time out after `timeout` (connecting
    * included). Release closes every connection.
    */
  def resource[F[_]](threads: Int, timeout: FiniteDuration)(using
      F: Async[F]
  ): Resource[F, HttpClient[F]] =
    Transport.group[F](threads, "weir-load").flatMap { group =>
      Resource.make(F.delay(new HttpClient[F](bootstrap(group, timeout), timeout)))(_.closeAll)
    }

  /** A client on an event loop group it does not own (e.g. [[EventLoopRuntime]]'s). Release closes
    * every connection, not the group.
    */
  def on[F[_]](group: EventLoopGroup, timeout: FiniteDuration)(using
      F: Async[F]
  ): Resource[F, HttpClient[F]] =
    Resource.make(F.delay(new HttpClient[F](bootstrap(group, timeout), timeout)))(_.closeAll)

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
            ch.pipeline.addLast(new HttpClientCodec(), new ClientConnection(ch)): Unit
      )
