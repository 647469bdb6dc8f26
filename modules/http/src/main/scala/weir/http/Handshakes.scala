package weir.http

import io.netty.handler.ssl.SslHandler
import java.util.concurrent.atomic.AtomicLong

/** The TLS handshakes a server completed (one per TLS connection that got that far). Thread-safe.
  */
final class Handshakes private[http] ():
  private val completed = new AtomicLong

  /** Handshakes completed so far. */
  def total: Long = completed.get

  /** Counts `handler`'s handshake if it succeeds. */
  private[http] def watch(handler: SslHandler): Unit =
    handler
      .handshakeFuture()
      .addListener((done: io.netty.util.concurrent.Future[? >: io.netty.channel.Channel]) =>
        if done.isSuccess then completed.incrementAndGet(): Unit
      ): Unit
