package weir.http

import cats.effect.kernel.{Async, Resource}
import cats.syntax.all.*
import io.netty.bootstrap.ServerBootstrap
import io.netty.channel.{ChannelInitializer, ChannelOption}
import io.netty.channel.socket.SocketChannel
import java.net.InetSocketAddress

/** A running delay server: `GET /{id}` answers `200 Request {id}` after a delay drawn from
  * [[ServerConfig.delay]] for the key `id` (a path without a number is keyed by its arrival number
  * instead), `GET /healthz` answers `ok` at once, `GET /stats` answers the [[ServerStats]] as JSON,
  * and `POST /reset` zeroes them and restarts the arrival numbers at 0.
  *
  * It runs on Netty (native epoll on Linux) with [[ServerConfig.threads]] event loops; a waiting
  * request costs a timer entry, so it holds as many connections as the process may open files. With
  * [[ServerConfig.withTls]] it serves `https://` ([[ServerTls]]), and [[handshakes]] counts its TLS
  * handshakes; with [[ServerConfig.withHttp2]] it speaks HTTP/2 too, each stream a request
  * ([[ServerPipeline]]).
  */
final class DelayServer private (
    val address: InetSocketAddress,
    counters: ServerStats,
    admission: Option[Admission],
    val handshakes: Option[Handshakes]
):

  /** The port bound (the chosen one when the configuration asked for port 0). */
  def port: Int = address.getPort

  /** The counters now (in-flight requests, their peak, statuses, ...). */
  def stats[F[_]](using F: Async[F]): F[ServerStats.Snapshot] = F.delay(counters.snapshot)

  /** With a capacity ([[ServerConfig.withCapacity]]), the most requests served at once so far. */
  def peakServing: Option[Int] = admission.map(_.peakServing)

  /** Zeroes the totals and restarts the peaks from now. */
  def resetStats[F[_]](using F: Async[F]): F[Unit] = F.delay(counters.reset())

object DelayServer:

  /** Binds and serves until released; release closes the listening socket and every connection
    * (requests still waiting are dropped). Fails if the address cannot be bound.
    */
  def resource[F[_]](config: ServerConfig)(using F: Async[F]): Resource[F, DelayServer] =
    val stats = new ServerStats
    val admission = config.capacity.map(new Admission(_))
    val handshakes = config.tls.map(_ => new Handshakes)
    for
      tls <- Resource.eval(F.delay(config.tls.map(_.context(alpn = config.http2))))
      pipeline = new ServerPipeline(config, stats, admission, tls, handshakes)
      // Load the time zone data now: Netty logs an accept that fails for want of descriptors, the
      // log line needs the zone, and loading it then fails too (no descriptor left), which would
      // kill the accept thread for good.
      _ <- Resource.eval(F.delay(java.util.TimeZone.getDefault).void)
      boss <- Transport.group[F](1, "weir-serve-accept")
      workers <- Transport.group[F](config.threads, "weir-serve")
      channel <- Resource.make(
        Transport.await[F] {
          new ServerBootstrap()
            .group(boss, workers)
            .channel(Transport.serverChannel)
            .option(ChannelOption.SO_BACKLOG, Integer.valueOf(65535))
            .option(ChannelOption.SO_REUSEADDR, java.lang.Boolean.TRUE)
            .childOption(ChannelOption.TCP_NODELAY, java.lang.Boolean.TRUE)
            .childHandler(
              new ChannelInitializer[SocketChannel]:
                def initChannel(ch: SocketChannel): Unit = pipeline.init(ch)
            )
            .bind(config.host, config.port)
        }
      )(ch => F.blocking(ch.close().awaitUninterruptibly()).void)
    yield new DelayServer(
      channel.localAddress.asInstanceOf[InetSocketAddress],
      stats,
      admission,
      handshakes
    )
