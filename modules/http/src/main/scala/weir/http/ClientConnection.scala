package weir.http

import io.netty.channel.{
  Channel,
  ChannelFuture,
  ChannelFutureListener,
  ChannelHandlerContext,
  ChannelInboundHandlerAdapter,
  ChannelOption
}
import io.netty.handler.codec.http.{FullHttpRequest, HttpResponse, HttpUtil, LastHttpContent}
import io.netty.util.ReferenceCountUtil
import java.util.concurrent.{ScheduledFuture, TimeUnit}

/** One keep-alive connection of the load client, carrying one request at a time.
  *
  * Its state is touched only on the channel's event loop: [[send]] hands the request to the loop,
  * which arms the timeout timer and writes; the response (or an error, the timeout, or the
  * connection closing) completes the callback exactly once. After any failure the connection is
  * closed and never reused.
  */
private[http] final class ClientConnection(val channel: Channel)
    extends ChannelInboundHandlerAdapter:

  private var callback: (Either[Throwable, Int] => Unit) | Null = null
  private var status = 0
  private var keepAlive = true
  private var timer: ScheduledFuture[?] | Null = null
  @volatile private var reusable = true

  /** True while the connection may carry another request. */
  def usable: Boolean = reusable && channel.isActive

  /** Sends `request`; `done` gets the status code or the error. Thread-safe. */
  def send(
      request: FullHttpRequest,
      timeoutNanos: Long,
      done: Either[Throwable, Int] => Unit
  ): Unit =
    channel.eventLoop.execute { () =>
      if !channel.isActive then
        ReferenceCountUtil.release(request): Unit
        done(Left(new ErrorClass.ClosedEarly))
      else
        callback = done
        status = 0
        if timeoutNanos > 0 then
          timer = channel.eventLoop.schedule(
            (() => fail(new ErrorClass.TimedOut(timeoutNanos))): Runnable,
            timeoutNanos,
            TimeUnit.NANOSECONDS
          )
        channel
          .writeAndFlush(request)
          .addListener(
            new ChannelFutureListener:
              def operationComplete(f: ChannelFuture): Unit = if !f.isSuccess then fail(f.cause)
          ): Unit
    }

  /** Closes the connection; a request in flight fails. Thread-safe. */
  def abort(): Unit =
    reusable = false
    channel.close(): Unit

  /** Closes with a reset (SO_LINGER 0) so that no TIME_WAIT entry stays behind: at the end of a
    * load, tens of thousands of those would hold the ephemeral ports that the next load needs
    * (connect() then searches the port range for seconds). Thread-safe.
    */
  def reset(): Unit =
    reusable = false
    if channel.isOpen then
      channel.config.setOption(ChannelOption.SO_LINGER, Integer.valueOf(0)): Unit
    channel.close(): Unit

  override def channelRead(ctx: ChannelHandlerContext, msg: Any): Unit =
    msg match
      case r: HttpResponse =>
        status = r.status.code
        keepAlive = HttpUtil.isKeepAlive(r)
      case _ => ()
    if msg.isInstanceOf[LastHttpContent] then complete()
    ReferenceCountUtil.release(msg): Unit

  override def channelInactive(ctx: ChannelHandlerContext): Unit =
    reusable = false
    fail(new ErrorClass.ClosedEarly)

  override def exceptionCaught(ctx: ChannelHandlerContext, cause: Throwable): Unit = fail(cause)

  private def complete(): Unit =
    val done = callback
    if done != null then
      callback = null
      cancelTimer()
      if !keepAlive then abort()
      done(Right(status))

  private def fail(error: Throwable): Unit =
    val done = callback
    abort()
    if done != null then
      callback = null
      cancelTimer()
      done(Left(error))

  private def cancelTimer(): Unit =
    val t = timer
    if t != null then
      t.cancel(false): Unit
      timer = null
