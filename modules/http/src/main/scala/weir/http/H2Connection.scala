package weir.http

import io.netty.bootstrap.Bootstrap
import io.netty.channel.{
  Channel,
  ChannelFuture,
  ChannelHandler,
  ChannelHandlerContext,
  ChannelInboundHandlerAdapter,
  ChannelInitializer
}
import io.netty.channel.socket.SocketChannel
import io.netty.handler.codec.http2.{
  Http2Exception,
  Http2FrameCodecBuilder,
  Http2MultiplexHandler,
  Http2Settings,
  Http2SettingsFrame,
  Http2StreamChannel,
  Http2StreamChannelBootstrap
}
import io.netty.handler.ssl.{ApplicationProtocolNames, SslContext, SslHandler}
import io.netty.util.concurrent.{Future as NettyFuture, Promise}
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicLong

/** One HTTP/2 connection of the load client, carrying many requests at once, each on a stream of
  * its own ([[H2Exchange]]).
  *
  * Opening: TCP, then for `https://` the TLS handshake, in which the client offers `h2` and
  * `http/1.1` (ALPN) and the server must choose `h2`; for `http://` the client speaks HTTP/2 at
  * once (prior knowledge, h2c). The connection is [[ready]] once the server's first SETTINGS frame
  * has arrived: within the connect timeout, else it fails with [[Http2Refused]] (a server that
  * answers in HTTP/1.1, or not at all, is never waited on for longer).
  *
  * Streams: the server's SETTINGS_MAX_CONCURRENT_STREAMS is respected by Netty's buffering encoder
  * (`encoderEnforceMaxConcurrentStreams`): a stream beyond it waits until another one closes,
  * rather than fail. Every handler runs on the connection's event loop; [[start]] is thread-safe.
  */
private[http] final class H2Connection private (
    val ready: Promise[Channel],
    val protocol: String,
    maxStreams: AtomicLong
):

  /** The server's SETTINGS_MAX_CONCURRENT_STREAMS, once [[ready]]; `None` while not known and when
    * the server sets no limit.
    */
  def serverMaxStreams: Option[Long] = Option(maxStreams.get).filter(_ >= 0)

  /** True once it was ready and while it is open. */
  def usable: Boolean =
    !ready.isDone || (ready.isSuccess && ready.getNow.isActive)

  /** Sends `exchange`'s request on a new stream once the connection is ready (or fails it with the
    * reason the connection never was). Thread-safe.
    */
  def start(exchange: H2Exchange): Unit =
    ready.addListener((f: NettyFuture[Channel]) =>
      if !f.isSuccess then exchange.fail(f.cause)
      else
        new Http2StreamChannelBootstrap(f.getNow)
          .handler(exchange)
          .open()
          .addListener((s: NettyFuture[Http2StreamChannel]) =>
            if s.isSuccess then exchange.begin(s.getNow) else exchange.fail(s.cause)
          ): Unit
    ): Unit

  /** Closes the connection: streams in flight end as closed early. Thread-safe. */
  def close(): Unit =
    ready.addListener((f: NettyFuture[Channel]) => if f.isSuccess then f.getNow.close(): Unit): Unit

private[http] object H2Connection:

  /** `HTTP/` in hex, as Netty's check of the first frame shows an HTTP/1.x response's start. */
  private val HttpInHex = "485454502f"

  /** Opens a connection to `target` on `bootstrap` (its group picks the event loop); over TLS with
    * `tls` (a context that offers `h2` in ALPN; given for `https://` targets), else h2c.
    * `connectMillis` bounds TCP, TLS and the wait for the server's SETTINGS each. `handshaken` sees
    * the TLS handler once its handshake has succeeded (on the event loop; for counting).
    */
  def open(
      bootstrap: Bootstrap,
      target: Target,
      tls: Option[SslContext],
      connectMillis: Int,
      handshaken: SslHandler => Unit
  ): H2Connection =
    val loop = bootstrap.config.group.next()
    val ready = loop.newPromise[Channel]()
    val maxStreams = new AtomicLong(-1)
    val b = bootstrap
      .clone()
      .handler(initializer(target, tls, connectMillis, Watch(ready, maxStreams), handshaken))
    b.connect(target.host, target.port)
      .addListener((f: ChannelFuture) => if !f.isSuccess then ready.tryFailure(f.cause): Unit): Unit
    new H2Connection(ready, if target.secure then "h2" else "h2c", maxStreams)

  /** What the connection's first SETTINGS frame completes: `ready`, and the stream limit it says.
    */
  private final case class Watch(ready: Promise[Channel], maxStreams: AtomicLong)

  private def initializer(
      target: Target,
      tls: Option[SslContext],
      connectMillis: Int,
      watch: Watch,
      handshaken: SslHandler => Unit
  ): ChannelInitializer[SocketChannel] =
    val ready = watch.ready
    new ChannelInitializer[SocketChannel]:
      def initChannel(ch: SocketChannel): Unit =
        ch.closeFuture.addListener((_: ChannelFuture) =>
          ready.tryFailure(
            refused(target, "it closed the connection before HTTP/2's SETTINGS")
          ): Unit
        )
        tls match
          case None => h2(ch, target, connectMillis, watch)
          case Some(context) =>
            val handler = context.newHandler(ch.alloc, target.host, target.port)
            handler.setHandshakeTimeoutMillis(connectMillis.toLong)
            ch.pipeline.addLast(handler)
            handler
              .handshakeFuture()
              .addListener((f: NettyFuture[Channel]) =>
                if !f.isSuccess then
                  ready.tryFailure(f.cause)
                  ch.close(): Unit
                else
                  handshaken(handler)
                  val chosen = Option(handler.applicationProtocol).filter(_.nonEmpty)
                  if chosen.contains(ApplicationProtocolNames.HTTP_2) then
                    h2(ch, target, connectMillis, watch)
                  else
                    ready.tryFailure(
                      refused(
                        target,
                        s"asked for h2 in the TLS handshake (ALPN), it chose ${chosen.getOrElse("none (an HTTP/1.1 server)")}"
                      )
                    )
                    ch.close(): Unit
              ): Unit

  /** HTTP/2 on `ch`: the frame codec (buffering streams beyond the server's limit), the stream
    * multiplexer, and the watch that makes the connection ready on the server's SETTINGS.
    */
  private def h2(ch: Channel, target: Target, connectMillis: Int, watch: Watch): Unit =
    val ready = watch.ready
    val codec = Http2FrameCodecBuilder
      .forClient()
      .initialSettings(Http2Settings.defaultSettings().pushEnabled(false))
      .encoderEnforceMaxConcurrentStreams(true)
      .build()
    ch.pipeline.addLast(
      codec,
      new Http2MultiplexHandler(NoPush),
      new SettingsWatch(ch, watch, why => refused(target, why))
    )
    val timer = ch.eventLoop.schedule(
      (
          () =>
            if ready.tryFailure(
                refused(
                  target,
                  s"no HTTP/2 SETTINGS frame within ${connectMillis} ms (--connect-timeout)"
                )
              )
            then ch.close(): Unit
      ): Runnable,
      connectMillis.toLong,
      TimeUnit.MILLISECONDS
    )
    ready.addListener((_: NettyFuture[Channel]) => timer.cancel(false): Unit): Unit

  private def refused(target: Target, why: String): Http2Refused =
    val how = if target.secure then why else s"$why (cleartext HTTP/2 with prior knowledge, h2c)"
    new Http2Refused(target.host, target.port, how)

  /** Server push is off (the client's SETTINGS say so); streams the server opens are ignored. */
  @ChannelHandler.Sharable
  private object NoPush extends ChannelInboundHandlerAdapter

  /** Makes the connection ready on the server's first SETTINGS frame, noting the stream limit it
    * sets (a later SETTINGS frame updates it); passes nothing on.
    */
  private final class SettingsWatch(ch: Channel, watch: Watch, refuse: String => Throwable)
      extends ChannelInboundHandlerAdapter:
    private val ready = watch.ready
    override def channelRead(ctx: ChannelHandlerContext, msg: Any): Unit =
      msg match
        case f: Http2SettingsFrame =>
          Option(f.settings.maxConcurrentStreams).foreach(n => watch.maxStreams.set(n.longValue))
          ready.trySuccess(ch): Unit
        case _ => ()
      io.netty.util.ReferenceCountUtil.release(msg): Unit

    /** Before the server's SETTINGS, an HTTP/2 protocol error means the server speaks something
      * else: an HTTP/1.1 server answers the preface with a response (`HTTP/`, which Netty's first
      * frame check shows in hex).
      */
    override def exceptionCaught(ctx: ChannelHandlerContext, cause: Throwable): Unit =
      val failure = cause match
        case e: Http2Exception if !ready.isDone =>
          val message = Option(e.getMessage).getOrElse("")
          if message.contains(H2Connection.HttpInHex) then refuse("it answered in HTTP/1.x")
          else refuse(s"its first bytes were not an HTTP/2 SETTINGS frame ($message)")
        case other => other
      ready.tryFailure(failure): Unit
      ctx.close(): Unit
