package weir.http

import io.netty.handler.ssl.{ReferenceCountedOpenSslEngine, SslHandler}
import io.netty.internal.tcnative.SSL
import java.util.concurrent.atomic.AtomicLong

/** What a load's client did over TLS: the engine, the handshakes its connections completed, and how
  * many of those resumed an earlier session (a TLS 1.3 ticket or a TLS 1.2 session from the
  * client's cache, so no certificate was sent or checked and no signature made).
  *
  * @param resumed
  *   `None` where the engine does not say (the JDK's `SSLEngine` does not tell whether a handshake
  *   resumed); BoringSSL says it per connection
  */
final case class TlsSessions(engine: TlsEngine, handshakes: Long, resumed: Option[Long]):

  /** One line for a report, e.g. `BoringSSL, 20 handshakes (19 resumed)`. */
  def describe: String =
    val r = resumed.fold("resumed: not counted by this engine")(n => f"$n%,d resumed")
    f"${engine.describe}, $handshakes%,d handshake${if handshakes == 1 then "" else "s"} ($r)"

object TlsSessions:

  /** Counts the handshakes of one client's connections. Thread-safe. `engine` is asked only once a
    * handshake was counted (so a client that made none never resolves its engine).
    */
  private[http] final class Counter(engine: () => TlsEngine):
    private val completed = new AtomicLong
    private val reused = new AtomicLong

    /** `handler`'s handshake completed: counts it, and whether it resumed a session. */
    def completed(handler: SslHandler): Unit =
      completed.incrementAndGet()
      handler.engine match
        case openssl: ReferenceCountedOpenSslEngine =>
          if SSL.isSessionReused(openssl.sslPointer) then reused.incrementAndGet(): Unit
        case _ => ()

    /** The counts so far; `None` before any handshake (a load over plain HTTP). */
    def snapshot: Option[TlsSessions] =
      val n = completed.get
      Option.when(n > 0) {
        val e = engine()
        TlsSessions(e, n, Option.when(e == TlsEngine.OpenSsl)(reused.get))
      }
