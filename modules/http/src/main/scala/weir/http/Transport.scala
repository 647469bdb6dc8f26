package weir.http

import cats.effect.kernel.{Async, Resource}
import cats.syntax.all.*
import io.netty.channel.{ChannelFuture, ChannelFutureListener, EventLoopGroup}
import io.netty.channel.epoll.{
  Epoll,
  EpollEventLoopGroup,
  EpollServerSocketChannel,
  EpollSocketChannel
}
import io.netty.channel.nio.NioEventLoopGroup
import io.netty.channel.socket.{ServerSocketChannel, SocketChannel}
import io.netty.handler.ssl.SslHandler
import io.netty.channel.socket.nio.{NioServerSocketChannel, NioSocketChannel}
import io.netty.util.concurrent.{DefaultThreadFactory, EventExecutor}
import java.util.concurrent.TimeUnit

/** Netty's native epoll transport on Linux, its NIO transport elsewhere. */
private[http] object Transport:

  val native: Boolean = Epoll.isAvailable

  /** An event loop group of `threads` daemon threads, shut down on release. */
  def group[F[_]](threads: Int, name: String)(using F: Async[F]): Resource[F, EventLoopGroup] =
    Resource.make(F.delay {
      val factory = new DefaultThreadFactory(name, true)
      if native then new EpollEventLoopGroup(threads, factory): EventLoopGroup
      else new NioEventLoopGroup(threads, factory)
    })(g =>
      F.blocking(
        g.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS)
      ).void
    )

  /** The index of the loop the calling thread runs, or -1 when it runs none of them. */
  def currentLoop(loops: Array[? <: EventExecutor]): Int =
    var i = 0
    while i < loops.length && !loops(i).inEventLoop do i += 1
    if i < loops.length then i else -1

  def serverChannel: Class[? <: ServerSocketChannel] =
    if native then classOf[EpollServerSocketChannel] else classOf[NioServerSocketChannel]

  def clientChannel: Class[? <: SocketChannel] =
    if native then classOf[EpollSocketChannel] else classOf[NioSocketChannel]

  /** Waits for a TLS handler's handshake; fails with its cause (the channel is then closed). */
  def handshake[F[_]](handler: SslHandler)(using F: Async[F]): F[Unit] =
    F.async[Unit] { cb =>
      F.delay {
        handler
          .handshakeFuture()
          .addListener((done: io.netty.util.concurrent.Future[? >: io.netty.channel.Channel]) =>
            if done.isSuccess then cb(Right(())) else cb(Left(done.cause))
          )
        Some(F.delay(handler.closeOutbound()).void)
      }
    }

  /** Waits for a channel future; fails with its cause. Cancelling cancels the future. */
  def await[F[_]](future: => ChannelFuture)(using F: Async[F]): F[io.netty.channel.Channel] =
    F.async[io.netty.channel.Channel] { cb =>
      F.delay {
        val f = future
        f.addListener(
          new ChannelFutureListener:
            def operationComplete(done: ChannelFuture): Unit =
              if done.isSuccess then cb(Right(done.channel)) else cb(Left(done.cause))
        )
        Some(F.delay(f.cancel(false)).void)
      }
    }
