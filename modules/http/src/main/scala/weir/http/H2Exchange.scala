package weir.http

import io.netty.channel.{Channel, ChannelHandlerContext, ChannelInboundHandlerAdapter}
import io.netty.handler.codec.http2.{
  DefaultHttp2HeadersFrame,
  Http2DataFrame,
  Http2HeadersFrame,
  Http2ResetFrame
}
import io.netty.util.ReferenceCountUtil
import java.io.IOException
import java.util.concurrent.{ScheduledFuture, TimeUnit}
import java.util.concurrent.atomic.AtomicBoolean

/** One request of the HTTP/2 client on one stream: the handler of its stream's child channel.
  *
  * [[begin]] (on the connection's event loop, once the stream channel is open) writes the HEADERS
  * (and the body, if any) with END_STREAM and arms the request's timer; the response's HEADERS give
  * the status (interim 1xx ones are skipped), and the frame that ends the server's side of the
  * stream completes the request. `done` is called exactly once: with the status, or with the error
  * (the timeout, a reset stream, the connection closing, or the connection never becoming ready).
  *
  * Cancellation ([[cancel]], thread-safe) closes the stream's channel, which resets the stream
  * (RST_STREAM CANCEL) when it is still open; the connection and its other streams go on.
  *
  * @param deadline
  *   `System.nanoTime` by which the response must have ended (the time spent waiting for the
  *   connection counts); `Long.MaxValue`: none
  */
private[http] final class H2Exchange(
    spec: RequestSpec,
    target: Target,
    deadline: Long,
    timeoutNanos: Long,
    done: Either[Throwable, Int] => Unit
) extends ChannelInboundHandlerAdapter:

  private val ended = new AtomicBoolean
  @volatile private var stream: Channel | Null = null
  @volatile private var cancelled = false
  private var status = 0
  private var timer: ScheduledFuture[?] | Null = null

  /** True once the request has ended, answered or not. */
  def answered: Boolean = ended.get

  /** Sends the request on `ch`, its stream's channel (this handler is in its pipeline). Called on
    * the channel's event loop.
    */
  def begin(ch: Channel): Unit =
    stream = ch
    if cancelled || ended.get then ch.close(): Unit
    else
      if deadline != Long.MaxValue then
        val left = deadline - System.nanoTime
        if left <= 0 then fail(new ErrorClass.TimedOut(timeoutNanos))
        else
          timer = ch.eventLoop.schedule(
            (() => fail(new ErrorClass.TimedOut(timeoutNanos))): Runnable,
            left,
            TimeUnit.NANOSECONDS
          )
      if !ended.get then
        val body = H2Request.body(spec)
        ch.write(new DefaultHttp2HeadersFrame(H2Request.headers(spec, target), body.isEmpty))
        body.foreach(ch.write)
        ch.flush(): Unit

  /** Abandons the request: its stream is reset if open. Thread-safe, idempotent. */
  def cancel(): Unit =
    cancelled = true
    val ch = stream
    if ch != null then ch.close(): Unit

  override def channelRead(ctx: ChannelHandlerContext, msg: Any): Unit =
    try
      msg match
        case h: Http2HeadersFrame =>
          val code = Option(h.headers.status).flatMap(s => s.toString.toIntOption).getOrElse(0)
          val interim = code >= 100 && code < 200 && code != 101
          if !interim && status == 0 then status = code
          if h.isEndStream && !interim then complete()
        case d: Http2DataFrame => if d.isEndStream then complete()
        case r: Http2ResetFrame =>
          fail(new IOException(s"the server reset the stream (error code ${r.errorCode})"))
        case _ => ()
    finally ReferenceCountUtil.release(msg): Unit

  override def channelInactive(ctx: ChannelHandlerContext): Unit =
    fail(new ErrorClass.ClosedEarly)

  override def exceptionCaught(ctx: ChannelHandlerContext, cause: Throwable): Unit =
    fail(cause)

  private def complete(): Unit =
    if ended.compareAndSet(false, true) then
      cancelTimer()
      val ch = stream
      if ch != null then ch.close(): Unit
      done(Right(status))

  /** Ends the request with `error` (closing its stream) unless it has ended. Any thread. */
  def fail(error: Throwable): Unit =
    if ended.compareAndSet(false, true) then
      val ch = stream
      if ch != null then
        ch.eventLoop.execute(() => cancelTimer())
        ch.close(): Unit
      done(Left(error))

  private def cancelTimer(): Unit =
    val t = timer
    if t != null then
      t.cancel(false): Unit
      timer = null
