package weir.http

import io.netty.handler.ssl.SslProvider
import weir.ConfigError

/** Which TLS implementation does the record encryption and the handshakes of `https://` connections
  * (docs/adr/0012-tls.md, where the two were measured).
  *
  *   - [[TlsEngine.Jdk]]: the JDK's `SSLEngine` (pure Java, no native code).
  *   - [[TlsEngine.OpenSsl]]: BoringSSL, the native library inside
  *     `netty-tcnative-boringssl-static` (Linux x86-64 here). Only the engine changes: certificates
  *     are still checked by the JDK's trust manager (its trust store, `--cacert`, hostname
  *     verification), so what is refused and why is the same on both.
  *
  * [[TlsEngine.default]] is BoringSSL where its native library loads, else the JDK's engine. Asking
  * for it (or for [[available]] of `OpenSsl`) loads that library the first time: a client or server
  * resolves its engine only when it builds a TLS context, so plain `http://` never loads it
  * ([[ClientTls.engine]]).
  */
enum TlsEngine(val name: String, private[http] val provider: SslProvider):
  case Jdk extends TlsEngine("jdk", SslProvider.JDK)
  case OpenSsl extends TlsEngine("openssl", SslProvider.OPENSSL)

  /** True when this engine can run in this process (BoringSSL: its native library loaded). */
  def available: Boolean = this match
    case Jdk     => true
    case OpenSsl => TlsEngine.nativeLoaded

  /** How a report names it: `JDK SSLEngine` or `BoringSSL`. */
  def describe: String = this match
    case Jdk     => "JDK SSLEngine"
    case OpenSsl => "BoringSSL"

object TlsEngine:

  /** How many times this process asked whether BoringSSL loads (the first ask loads it): for the
    * test that a plain `http://` load never asks.
    */
  private val asked = new java.util.concurrent.atomic.AtomicLong

  /** See [[asked]]. */
  private[weir] def timesAsked: Long = asked.get

  /** True when netty-tcnative's BoringSSL loaded (loaded and checked once, on first use). Never
    * throws.
    */
  private[http] def nativeLoaded: Boolean =
    asked.incrementAndGet()
    loaded

  private lazy val loaded: Boolean =
    try io.netty.handler.ssl.OpenSsl.isAvailable
    catch case _: Throwable => false

  /** BoringSSL when it loads here, else the JDK's engine. The first call loads BoringSSL's native
    * library (tens of milliseconds, a few MB): call it only when a TLS context is about to be
    * built.
    */
  def default: TlsEngine = if OpenSsl.available then OpenSsl else Jdk

  /** `jdk` or `openssl`; `Left` for any other name, or for `openssl` where its native library does
    * not load (with why).
    */
  def parse(text: String): Either[ConfigError, TlsEngine] =
    values.find(_.name == text.trim.toLowerCase) match
      case None =>
        Left(
          ConfigError.Unreadable(
            "TLS engine",
            text,
            s"'$text' is not a TLS engine; write jdk or openssl"
          )
        )
      case Some(e) if !e.available =>
        val why = Option(io.netty.handler.ssl.OpenSsl.unavailabilityCause).fold("")(c =>
          s": ${c.getMessage}"
        )
        Left(
          ConfigError.Invalid(
            "TLS engine",
            s"openssl is not available on this machine (BoringSSL's native library did not load$why); use jdk"
          )
        )
      case Some(e) => Right(e)
