package weir.http

import io.netty.buffer.ByteBuf
import io.netty.channel.{
  Channel,
  ChannelHandlerContext,
  ChannelInboundHandlerAdapter,
  ChannelInitializer,
  ChannelPipeline
}
import io.netty.handler.codec.ByteToMessageDecoder
import io.netty.handler.codec.http.HttpServerCodec
import io.netty.handler.codec.http2.{
  Http2FrameCodecBuilder,
  Http2MultiplexHandler,
  Http2Settings,
  Http2StreamChannel,
  Http2StreamFrameToHttpObjectCodec
}
import io.netty.handler.ssl.{ApplicationProtocolNames, ApplicationProtocolNegotiationHandler}
import io.netty.handler.ssl.SslContext
import java.nio.charset.StandardCharsets.US_ASCII

/** The delay server's pipeline for one accepted connection: the connection counter first, then TLS
  * when configured, then HTTP/1.1 ([[ServerHandler]] behind Netty's codec) or, with
  * [[ServerConfig.withHttp2]], HTTP/2: chosen by ALPN over TLS, by the first bytes without
  * (HTTP/2's connection preface means h2 with prior knowledge; anything else HTTP/1.1).
  *
  * Under HTTP/2 every stream gets a [[ServerHandler]] of its own behind
  * `Http2StreamFrameToHttpObjectCodec`, so a stream is delayed, faulted and counted in
  * [[ServerStats]] exactly as an HTTP/1.1 request is; connections are counted once, by the counter
  * on the TCP connection. All of it runs on the connection's event loop.
  */
private[http] final class ServerPipeline(
    config: ServerConfig,
    stats: ServerStats,
    admission: Option[Admission],
    tls: Option[SslContext],
    handshakes: Option[Handshakes]
):

  def init(ch: Channel): Unit =
    val p = ch.pipeline
    p.addLast(new ServerPipeline.Counter(stats, config))
    tls match
      case Some(context) =>
        val handler = context.newHandler(ch.alloc)
        handshakes.foreach(_.watch(handler))
        p.addLast(handler)
        if config.http2 then p.addLast(new ServerPipeline.Negotiation(this)): Unit
        else http1(p)
      case None =>
        if config.http2 then p.addLast(new ServerPipeline.Sniffer(this)): Unit
        else http1(p)

  private[http] def http1(p: ChannelPipeline): Unit =
    p.addLast(new HttpServerCodec(), new ServerHandler(config, stats, admission)): Unit

  private[http] def h2(p: ChannelPipeline): Unit =
    stats.http2Opened()
    val settings = Http2Settings.defaultSettings()
    config.maxStreams.foreach(n => settings.maxConcurrentStreams(n.toLong))
    val codec = Http2FrameCodecBuilder.forServer().initialSettings(settings).build()
    val streams = new ChannelInitializer[Http2StreamChannel]:
      def initChannel(ch: Http2StreamChannel): Unit =
        ch.pipeline.addLast(
          new Http2StreamFrameToHttpObjectCodec(true),
          new ServerHandler(config, stats, admission)
        ): Unit
    p.addLast(codec, new Http2MultiplexHandler(streams)): Unit

private[http] object ServerPipeline:

  /** After the TLS handshake: HTTP/2 when ALPN chose h2, HTTP/1.1 otherwise. A handshake that fails
    * (a client that does not trust the certificate, bytes that are not TLS) closes the connection
    * without a word, as it does without `--http2`: Netty's default logged a warning with a stack
    * trace on the server's stderr for each one.
    */
  private final class Negotiation(pipeline: ServerPipeline)
      extends ApplicationProtocolNegotiationHandler(ApplicationProtocolNames.HTTP_1_1):
    protected def configurePipeline(ctx: ChannelHandlerContext, protocol: String): Unit =
      if protocol == ApplicationProtocolNames.HTTP_2 then pipeline.h2(ctx.pipeline)
      else pipeline.http1(ctx.pipeline)

    override protected def handshakeFailure(ctx: ChannelHandlerContext, cause: Throwable): Unit =
      ctx.close(): Unit

  /** Counts the connection in [[ServerStats]] while it is open, and closes one beyond
    * [[ServerConfig.maxConnections]] as soon as it is accepted.
    */
  private final class Counter(stats: ServerStats, config: ServerConfig)
      extends ChannelInboundHandlerAdapter:
    override def channelActive(ctx: ChannelHandlerContext): Unit =
      val open = stats.opened()
      if config.maxConnections.exists(open > _) then ctx.close(): Unit
      else ctx.fireChannelActive(): Unit

    override def channelInactive(ctx: ChannelHandlerContext): Unit =
      stats.closed()
      ctx.fireChannelInactive(): Unit

  private val Preface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(US_ASCII)

  /** Reads the first bytes of a cleartext connection: HTTP/2's preface (all 24 bytes) installs
    * HTTP/2, the first byte that differs from it HTTP/1.1; then it leaves the pipeline, passing on
    * every byte it read.
    */
  private final class Sniffer(pipeline: ServerPipeline) extends ByteToMessageDecoder:
    protected def decode(
        ctx: ChannelHandlerContext,
        in: ByteBuf,
        out: java.util.List[Object]
    ): Unit =
      val n = math.min(in.readableBytes, Preface.length)
      var i = 0
      while i < n && in.getByte(in.readerIndex + i) == Preface(i) do i += 1
      if i < n then
        pipeline.http1(ctx.pipeline)
        ctx.pipeline.remove(this): Unit
      else if n == Preface.length then
        pipeline.h2(ctx.pipeline)
        ctx.pipeline.remove(this): Unit
