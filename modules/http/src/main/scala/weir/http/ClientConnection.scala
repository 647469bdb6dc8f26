package weir.http

import io.netty.channel.{
  Channel,
  ChannelHandlerContext,
  ChannelInboundHandlerAdapter,
  ChannelOption
}
import io.netty.buffer.ByteBuf
import java.util.concurrent.{ScheduledFuture, TimeUnit}

/** One keep-alive connection of the load client, carrying one request at a time.
  *
  * Its state is touched only on the channel's event loop: [[send]] hands the request to the loop,
  * which arms the timeout timer and writes; the response (or an error, the timeout, or the
  * connection closing) completes the callback exactly once. After any failure, a malformed response
  * included, the connection is closed and never reused. Responses are read by a [[ResponseParser]]
  * straight from the socket's bytes.
  *
  * The timeout is checked lazily: a connection has at most one timer pending, armed for the first
  * request's deadline; when it fires early for a later request it re-arms for that request's
  * deadline. A request never waits past its own deadline, and an answered request costs no timer
  * operation (at 100 000 requests a second, scheduling and cancelling one timer per request was a
  * visible share of the client's CPU).
  */
private[http] final class ClientConnection(val channel: Channel)
    extends ChannelInboundHandlerAdapter:

  private val parser = new ResponseParser
  private var callback: (Either[Throwable, Int] => Unit) | Null = null
  private var timer: ScheduledFuture[?] | Null = null
  private var out: ByteBuf | Null = null // this connection's request bytes, rewritten per request
  private var timeoutNanos = 0L
  private var deadline = 0L // System.nanoTime by which the request in flight must end
  private var closing = false // the request in flight said `Connection: close`
  @volatile private var reusable = true

  /** True while the connection may carry another request. */
  def usable: Boolean = reusable && channel.isActive

  /** Sends the request `spec` makes for `target`; `done` gets the status code or the error. With
    * `close`, the request says `Connection: close` and the connection is reset once it is answered
    * (no TIME_WAIT entry left behind). Thread-safe.
    */
  def send(
      target: Target,
      spec: RequestSpec,
      timeoutNanos: Long,
      close: Boolean,
      done: Either[Throwable, Int] => Unit
  ): Unit =
    channel.eventLoop.execute { () =>
      if !channel.isActive then done(Left(new ErrorClass.ClosedEarly))
      else
        callback = done
        parser.bodyless = spec.isHead
        closing = close
        val request = requestBuffer()
        spec.writeTo(target, request, close)
        this.timeoutNanos = timeoutNanos
        if timeoutNanos > 0 then
          deadline = System.nanoTime + timeoutNanos
          if timer == null then armTimer(timeoutNanos)
        // A write failure reaches exceptionCaught (no promise or listener is allocated).
        channel.writeAndFlush(request, channel.voidPromise()): Unit
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
    val in = msg.asInstanceOf[ByteBuf]
    try while in.isReadable do if parser.read(in) then complete()
    catch case malformed: ResponseParser.Malformed => fail(malformed)
    finally in.release(): Unit

  override def channelInactive(ctx: ChannelHandlerContext): Unit =
    reusable = false
    if parser.endsAtClose then
      parser.closed()
      complete()
    fail(new ErrorClass.ClosedEarly)
    val buf = out
    if buf != null then
      out = null
      buf.release(): Unit

  /** This connection's request buffer, emptied and retained once for the write that follows (the
    * channel releases that reference once the bytes are out). One buffer per connection instead of
    * one per request: the previous request's bytes were written before its answer arrived. Should a
    * write still hold it (a server that answers before reading the whole request), a new one is
    * taken.
    */
  private def requestBuffer(): ByteBuf =
    val current = out
    val buf =
      if current != null && current.refCnt == 1 then current.clear()
      else
        if current != null then current.release(): Unit
        val fresh = channel.alloc.directBuffer(128)
        out = fresh
        fresh
    buf.retain()

  override def exceptionCaught(ctx: ChannelHandlerContext, cause: Throwable): Unit = fail(cause)

  private def complete(): Unit =
    val done = callback
    if done != null then
      callback = null
      if closing then reset() else if !parser.keepAlive then abort()
      done(Right(parser.status))

  private def armTimer(delayNanos: Long): Unit =
    timer = channel.eventLoop.schedule(
      (() => checkDeadline()): Runnable,
      delayNanos,
      TimeUnit.NANOSECONDS
    )

  /** The pending timer fired: fails the request in flight if its deadline has passed, else waits
    * for that deadline.
    */
  private def checkDeadline(): Unit =
    timer = null
    if callback != null then
      val left = deadline - System.nanoTime
      if left <= 0 then fail(new ErrorClass.TimedOut(timeoutNanos)) else armTimer(left)

  private def fail(error: Throwable): Unit =
    val done = callback
    abort()
    cancelTimer()
    if done != null then
      callback = null
      done(Left(error))

  private def cancelTimer(): Unit =
    val t = timer
    if t != null then
      t.cancel(false): Unit
      timer = null
