package weir.http

import io.netty.handler.ssl.{
  ApplicationProtocolConfig,
  ApplicationProtocolNames,
  SslContext,
  SslContextBuilder
}
import java.io.IOException
import java.nio.file.{Files, Path}
import java.security.{GeneralSecurityException, KeyFactory, MessageDigest, PrivateKey}
import java.security.cert.X509Certificate
import java.security.spec.PKCS8EncodedKeySpec
import java.util.{Base64, HexFormat}
import weir.{ConfigError, FileProblem}

/** The delay server's certificate and key, for `https://` ([[ServerConfig.withTls]]): TLS 1.3 and
  * 1.2 on [[engine]] (BoringSSL where its native library loads, else the JDK's `SSLEngine`, as the
  * client; docs/adr/0012-tls.md), resolved when the server builds its context.
  *
  * @param chain
  *   the server's certificate first, then any intermediates
  * @param chosen
  *   the engine [[withEngine]] chose; `None`: [[TlsEngine.default]]
  */
final case class ServerTls private (
    chain: List[X509Certificate],
    key: PrivateKey,
    chosen: Option[TlsEngine]
):

  /** The engine: the one chosen, else [[TlsEngine.default]] (whose first call loads BoringSSL's
    * native library).
    */
  def engine: TlsEngine = chosen.getOrElse(TlsEngine.default)

  /** Serves on `e` (the JDK's engine or BoringSSL); the certificate and ALPN stay the same. */
  def withEngine(e: TlsEngine): ServerTls = copy(chosen = Some(e))

  /** The SHA-256 fingerprint of the server's certificate, as `AB:CD:...` (what `openssl x509
    * -fingerprint -sha256` prints).
    */
  def fingerprint: String = ServerTls.fingerprint(chain.head)

  /** The chain as PEM text, for a client to trust (`weir load --cacert`). */
  def certificatePem: String = chain.map(ServerTls.pem).mkString

  /** A server context; with `alpn`, it chooses `h2` when a client offers it (ALPN), else
    * `http/1.1`. Builds key managers: call it once per server.
    */
  private[http] def context(alpn: Boolean): SslContext =
    val plain = SslContextBuilder
      .forServer(key, chain*)
      .sslProvider(engine.provider)
      .protocols("TLSv1.3", "TLSv1.2")
    val builder =
      if !alpn then plain
      else
        plain.applicationProtocolConfig(
          new ApplicationProtocolConfig(
            ApplicationProtocolConfig.Protocol.ALPN,
            ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
            ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT,
            ApplicationProtocolNames.HTTP_2,
            ApplicationProtocolNames.HTTP_1_1
          )
        )
    builder.build()

object ServerTls:

  /** `chain` (the server's certificate first) with its private `key`; `Left` when the chain is
    * empty.
    */
  def of(chain: List[X509Certificate], key: PrivateKey): Either[ConfigError, ServerTls] =
    if chain.isEmpty then Left(ConfigError.Invalid("certificate chain", "is empty"))
    else Right(new ServerTls(chain, key, None))

  /** Reads a PEM certificate chain and an unencrypted PKCS#8 PEM key (`BEGIN PRIVATE KEY`, RSA, EC
    * or Ed25519); `Left` names the file and what is wrong with it.
    */
  def pem(certificate: Path, key: Path): Either[ConfigError, ServerTls] =
    for
      chain <- ClientTls
        .readPem(certificate)
        .left
        .map(e => ConfigError.Unreadable("certificate", certificate.toString, e.getMessage))
      k <- readKey(key)
      tls <- of(chain, k)
    yield tls

  private def readKey(path: Path): Either[ConfigError, PrivateKey] =
    def unreadable(why: String) = Left(ConfigError.Unreadable("key", path.toString, why))
    val text =
      try Right(Files.readString(path))
      catch case e: IOException => unreadable(s"cannot read $path: ${FileProblem.describe(e)}")
    text.flatMap { t =>
      val begin = "-----BEGIN PRIVATE KEY-----"
      val start = t.indexOf(begin)
      val end = t.indexOf("-----END PRIVATE KEY-----")
      if start < 0 || end < start then
        unreadable(
          s"$path holds no unencrypted PKCS#8 key (BEGIN PRIVATE KEY); convert one with: openssl pkcs8 -topk8 -nocrypt -in KEY -out KEY.pk8"
        )
      else
        val der =
          try Right(Base64.getMimeDecoder.decode(t.substring(start + begin.length, end)))
          catch
            case e: IllegalArgumentException => unreadable(s"$path: bad base64: ${e.getMessage}")
        der.flatMap { bytes =>
          List("RSA", "EC", "Ed25519").iterator
            .map(alg =>
              try Some(KeyFactory.getInstance(alg).generatePrivate(new PKCS8EncodedKeySpec(bytes)))
              catch case _: GeneralSecurityException => None
            )
            .collectFirst { case Some(k) => k }
            .toRight(
              ConfigError.Unreadable("key", path.toString, s"$path: not an RSA, EC or Ed25519 key")
            )
        }
    }

  private def fingerprint(c: X509Certificate): String =
    HexFormat
      .ofDelimiter(":")
      .withUpperCase
      .formatHex(MessageDigest.getInstance("SHA-256").digest(c.getEncoded))

  private def pem(c: X509Certificate): String =
    val body = Base64.getMimeEncoder(64, "\n".getBytes).encodeToString(c.getEncoded)
    s"-----BEGIN CERTIFICATE-----\n$body\n-----END CERTIFICATE-----\n"
