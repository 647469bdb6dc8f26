package weir.http

import io.netty.handler.ssl.{ReferenceCountedOpenSslEngine, SslHandler}
import java.util.concurrent.atomic.AtomicLong

/** The TLS handshakes a server completed (one per TLS connection that got that far), and which
  * engine ran each. Thread-safe.
  */
final class Handshakes private[http] ():
  private val completed = new AtomicLong
  // Of `completed`, those BoringSSL ran; counted after `completed`, read before it (so never more).
  private val onBoringSsl = new AtomicLong

  /** Handshakes completed so far. */
  def total: Long = completed.get

  /** Handshakes completed so far, by the engine that ran them: seen on each connection's own
    * `SSLEngine`, not taken from the configuration. Engines that ran none are left out.
    */
  def byEngine: Map[TlsEngine, Long] =
    val boring = onBoringSsl.get
    Map(TlsEngine.OpenSsl -> boring, TlsEngine.Jdk -> (completed.get - boring)).filter(_._2 > 0)

  /** Counts `handler`'s handshake if it succeeds. */
  private[http] def watch(handler: SslHandler): Unit =
    handler
      .handshakeFuture()
      .addListener((done: io.netty.util.concurrent.Future[? >: io.netty.channel.Channel]) =>
        if done.isSuccess then
          completed.incrementAndGet()
          if handler.engine.isInstanceOf[ReferenceCountedOpenSslEngine] then
            onBoringSsl.incrementAndGet(): Unit
      ): Unit
