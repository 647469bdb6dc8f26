package weir.http

import io.netty.handler.ssl.{ReferenceCountedOpenSslEngine, SslHandler}
import io.netty.internal.tcnative.SSL
import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.atomic.AtomicLong
import scala.jdk.CollectionConverters.*

/** What a load's client did over TLS: the engine, the handshakes its connections completed, the TLS
  * versions they negotiated, and how many of those resumed an earlier session (a TLS 1.3 ticket or
  * a TLS 1.2 session from the client's cache, so no certificate was sent or checked and no
  * signature made).
  *
  * @param resumed
  *   `None` where the engine does not say (the JDK's `SSLEngine` does not tell whether a handshake
  *   resumed); BoringSSL says it per connection
  * @param versions
  *   handshakes by the TLS version negotiated (`TLSv1.3` → 20), as the engine names it
  */
final case class TlsSessions(
    engine: TlsEngine,
    handshakes: Long,
    resumed: Option[Long],
    versions: Map[String, Long] = Map.empty
):

  /** The versions negotiated: `TLSv1.3`, or `TLSv1.3 on 18, TLSv1.2 on 2`; `None` when not known.
    */
  def versionLine: Option[String] =
    Option.when(versions.nonEmpty)(versions.toList.sortBy(-_._2) match
      case List((v, _)) => v
      case many         => many.map((v, n) => f"$v on $n%,d").mkString(", ")
    )

  /** One line for a report, e.g. `BoringSSL, TLSv1.3, 20 handshakes (19 resumed)`. */
  def describe: String =
    val r = resumed.fold("resumed: not counted by this engine")(n => f"$n%,d resumed")
    val v = versionLine.fold("")(l => s", $l")
    f"${engine.describe}$v, $handshakes%,d handshake${if handshakes == 1 then "" else "s"} ($r)"

object TlsSessions:

  /** Counts the handshakes of one client's connections. Thread-safe. `engine` is asked only once a
    * handshake was counted (so a client that made none never resolves its engine).
    */
  private[http] final class Counter(engine: () => TlsEngine):
    private val completed = new AtomicLong
    private val reused = new AtomicLong
    private val versions = new ConcurrentHashMap[String, AtomicLong]()

    /** `handler`'s handshake completed: counts it, its TLS version, and whether it resumed. */
    def completed(handler: SslHandler): Unit =
      completed.incrementAndGet()
      val version = Option(handler.engine.getSession).flatMap(s => Option(s.getProtocol))
      version.foreach(v => versions.computeIfAbsent(v, _ => new AtomicLong).incrementAndGet())
      handler.engine match
        case openssl: ReferenceCountedOpenSslEngine =>
          if SSL.isSessionReused(openssl.sslPointer) then reused.incrementAndGet(): Unit
        case _ => ()

    /** The counts so far; `None` before any handshake (a load over plain HTTP). */
    def snapshot: Option[TlsSessions] =
      val n = completed.get
      Option.when(n > 0) {
        val e = engine()
        val byVersion = versions.asScala.view.mapValues(_.get).toMap
        TlsSessions(e, n, Option.when(e == TlsEngine.OpenSsl)(reused.get), byVersion)
      }
