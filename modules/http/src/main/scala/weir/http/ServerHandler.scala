package weir.http

import io.netty.buffer.Unpooled
import io.netty.channel.{ChannelHandlerContext, ChannelInboundHandlerAdapter, ChannelOption}
import io.netty.handler.codec.http.*
import io.netty.util.ReferenceCountUtil
import java.nio.charset.StandardCharsets.UTF_8
import java.util.concurrent.TimeUnit

/** One HTTP/1.1 connection of the delay server, or one HTTP/2 stream (behind Netty's
  * `Http2StreamFrameToHttpObjectCodec`, which makes the stream's frames one HTTP/1.1-shaped
  * request). Runs on the connection's event loop only, so its state needs no synchronisation.
  * Connections are counted by [[ServerPipeline]]'s counter, not here.
  *
  * Responses leave in request order (HTTP/1.1 pipelining): each request takes a place in `pending`;
  * a response is written once it and every earlier one are ready. The delay is a timer on the event
  * loop, not a thread or a fiber.
  */
private[http] final class ServerHandler(
    config: ServerConfig,
    stats: ServerStats,
    admission: Option[Admission]
) extends ChannelInboundHandlerAdapter:

  private final class Pending(val keepAlive: Boolean, val counted: Boolean):
    var response: FullHttpResponse | Null = null

  private val pending = new java.util.ArrayDeque[Pending]()
  private var open = true

  override def channelInactive(ctx: ChannelHandlerContext): Unit =
    open = false
    pending.forEach { p =>
      if p.counted then stats.leave()
      val r = p.response
      if r != null then ReferenceCountUtil.release(r): Unit
    }
    pending.clear()
    ctx.fireChannelInactive(): Unit

  override def exceptionCaught(ctx: ChannelHandlerContext, cause: Throwable): Unit =
    ctx.close(): Unit

  override def channelRead(ctx: ChannelHandlerContext, msg: Any): Unit =
    msg match
      case request: HttpRequest => handle(ctx, request)
      case _                    => ()
    ReferenceCountUtil.release(msg): Unit

  private def handle(ctx: ChannelHandlerContext, request: HttpRequest): Unit =
    val keepAlive = HttpUtil.isKeepAlive(request)
    val uri = request.uri
    val path = uri.indexOf('?') match
      case -1 => uri
      case q  => uri.substring(0, q)
    path match
      case "/healthz" =>
        ready(ctx, enqueue(keepAlive, counted = false), HttpResponseStatus.OK, "ok\n")
      case "/stats" =>
        ready(
          ctx,
          enqueue(keepAlive, counted = false),
          HttpResponseStatus.OK,
          stats.snapshot.json + "\n",
          "application/json"
        )
      case "/reset" =>
        val slot = enqueue(keepAlive, counted = false)
        if request.method == HttpMethod.POST then
          stats.reset()
          ready(ctx, slot, HttpResponseStatus.OK, "ok\n")
        else ready(ctx, slot, HttpResponseStatus.METHOD_NOT_ALLOWED, "use POST /reset\n")
      case _ =>
        // A path without a numeric id (`/`, as hey and wrk send it) is keyed by its arrival
        // number since the start or the last POST /reset: a client repeating one URL sees the
        // delays that ids 0, 1, 2, ... get, so that clients of both kinds meet equal delays.
        val key = Keyed.id(path).getOrElse(stats.nextArrival())
        config.listener.foreach(_(key))
        config.faults.of(config.seed, key) match
          case Faults.Fault.Drop =>
            stats.drop()
            // SO_LINGER 0 makes close send RST: the client sees a reset connection.
            ctx.channel.config.setOption(ChannelOption.SO_LINGER, Integer.valueOf(0)): Unit
            ctx.close(): Unit
          case Faults.Fault.Stall =>
            stats.enter()
            stats.stall()
            enqueue(keepAlive, counted = true): Unit
          case fault =>
            stats.enter()
            val slot = enqueue(keepAlive, counted = true)
            val (status, body) =
              if fault == Faults.Fault.Error then
                (HttpResponseStatus.INTERNAL_SERVER_ERROR, "injected error\n")
              else (HttpResponseStatus.OK, "Request " + path.substring(path.lastIndexOf('/') + 1))
            val nanos = config.delay.nanosFor(config.seed, key)
            admission match
              case None =>
                if nanos <= 0 then ready(ctx, slot, status, body)
                else
                  ctx.executor.schedule(
                    (() => ready(ctx, slot, status, body)): Runnable,
                    nanos,
                    TimeUnit.NANOSECONDS
                  ): Unit
              case Some(places) =>
                // Served once there is a place; the place is given back when the delay is over,
                // whether or not the connection is still open.
                val served: Runnable = () =>
                  places.leave()
                  ready(ctx, slot, status, body)
                places.enter(() =>
                  ctx.executor.schedule(served, math.max(nanos, 0L), TimeUnit.NANOSECONDS): Unit
                )

  private def enqueue(keepAlive: Boolean, counted: Boolean): Pending =
    val p = Pending(keepAlive, counted)
    pending.addLast(p)
    p

  private def ready(
      ctx: ChannelHandlerContext,
      slot: Pending,
      status: HttpResponseStatus,
      body: String,
      contentType: String = "text/plain"
  ): Unit =
    if open then
      val bytes = body.getBytes(UTF_8)
      val response =
        new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, Unpooled.wrappedBuffer(bytes))
      val headers = response.headers
      headers.set(HttpHeaderNames.CONTENT_TYPE, contentType)
      headers.setInt(HttpHeaderNames.CONTENT_LENGTH, bytes.length)
      if !slot.keepAlive then headers.set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE): Unit
      slot.response = response
      flush(ctx)

  private def flush(ctx: ChannelHandlerContext): Unit =
    var wrote = false
    var close = false
    while !close && !pending.isEmpty && pending.peekFirst.response != null do
      val p = pending.pollFirst
      val response = p.response.nn
      if p.counted then
        stats.leave()
        stats.answered(response.status.code)
      ctx.write(response): Unit
      wrote = true
      close = !p.keepAlive
    if wrote then
      if close then
        ctx
          .writeAndFlush(Unpooled.EMPTY_BUFFER)
          .addListener(io.netty.channel.ChannelFutureListener.CLOSE): Unit
      else ctx.flush(): Unit
