package weir.http

import io.netty.handler.ssl.{
  ApplicationProtocolConfig,
  ApplicationProtocolNames,
  SslContext,
  SslContextBuilder
}
import io.netty.handler.ssl.util.InsecureTrustManagerFactory
import java.io.{ByteArrayInputStream, IOException}
import java.net.Socket
import java.nio.file.{Files, Path}
import java.security.KeyStore
import java.security.cert.{CertificateException, CertificateFactory, X509Certificate}
import javax.net.ssl.{SSLEngine, TrustManagerFactory, X509ExtendedTrustManager, X509TrustManager}
import scala.jdk.CollectionConverters.*
import weir.{ConfigError, FileProblem}

/** How the load client checks the servers it reaches over TLS (`https://` targets).
  *
  * Default: certificates verified against the JDK's trust store, with hostname verification (the
  * `HTTPS` endpoint identification algorithm: the certificate must name the URL's host or IP
  * address). [[withCa]] trusts more certificate authorities besides the JDK's; [[insecure]] accepts
  * any certificate for any host (the report says so). TLS 1.3 and 1.2, on [[engine]]
  * ([[TlsEngine.default]] unless [[withEngine]] chose: BoringSSL where it loads, else the JDK's
  * `SSLEngine`; docs/adr/0012-tls.md); the certificate checks are the JDK trust manager's on both.
  * SNI is sent for host names.
  *
  * The default engine is resolved only when a context is built ([[context]], on a client's first
  * `https://` connection), never by making or copying a `ClientTls`: a client that only speaks
  * plain HTTP never loads BoringSSL's native library.
  *
  * One client builds one context ([[context]]) and shares it among all its connections, so that the
  * engine's client session cache resumes sessions across connections to the same host and port
  * (observed and counted on BoringSSL: [[TlsSessions]]; not observed on the JDK's engine).
  *
  * @param cas
  *   certificate authorities trusted besides the JDK's, with where they came from (for
  *   [[describe]])
  * @param chosen
  *   the engine [[withEngine]] chose; `None`: [[TlsEngine.default]], resolved when needed
  */
final case class ClientTls private (
    cas: List[X509Certificate],
    caSources: List[String],
    verify: Boolean,
    chosen: Option[TlsEngine]
):

  /** The engine: the one chosen, else [[TlsEngine.default]] (whose first call loads BoringSSL's
    * native library).
    */
  def engine: TlsEngine = chosen.getOrElse(TlsEngine.default)

  /** Also trusts `certs` (CA certificates) read from `from` (a file name, for [[describe]]). */
  def withCa(certs: List[X509Certificate], from: String): ClientTls =
    copy(cas = cas ++ certs, caSources = caSources :+ from)

  /** Also trusts the CA certificates of the PEM file at `path`; `Left` when it cannot be read or
    * holds no certificate.
    */
  def withCaFile(path: Path): Either[ConfigError, ClientTls] =
    ClientTls.readPem(path).map(withCa(_, path.toString))

  /** On `e` (the JDK's engine or BoringSSL); the checks stay the same. */
  def withEngine(e: TlsEngine): ClientTls = copy(chosen = Some(e))

  /** Verifies nothing: any certificate, for any host, is accepted. */
  def insecure: ClientTls = copy(verify = false)

  /** One line for a report: how the servers' certificates were checked. */
  def describe: String =
    if !verify then "certificates NOT verified (--insecure)"
    else if caSources.isEmpty then "certificates verified against the JDK's trust store"
    else s"certificates verified against the JDK's trust store and ${caSources.mkString(", ")}"

  /** A client context for these settings; `observe` sees each certificate chain a server presents,
    * before it is checked (the probe uses it to say what was wrong with a refused one); with
    * `alpn`, the handshake offers `h2` and `http/1.1` (ALPN). Builds trust stores: call it once per
    * client.
    */
  private[http] def context(
      observe: Array[X509Certificate] => Unit = ClientTls.ignore,
      alpn: Boolean = false
  ): SslContext =
    val plain = SslContextBuilder
      .forClient()
      .sslProvider(engine.provider)
      .protocols("TLSv1.3", "TLSv1.2")
    val builder = if alpn then plain.applicationProtocolConfig(ClientTls.offerH2) else plain
    if verify then
      builder
        .trustManager(new ClientTls.Observing(ClientTls.trusting(cas), observe))
        .endpointIdentificationAlgorithm("HTTPS")
        .build()
    else
      val any = InsecureTrustManagerFactory.INSTANCE.getTrustManagers.collectFirst {
        case t: X509TrustManager => t
      }.get
      builder.trustManager(new ClientTls.Observing(ClientTls.extended(any), observe)).build()

object ClientTls:

  /** The JDK's trust store, hostname verification on, the default engine (not resolved yet). */
  val default: ClientTls = new ClientTls(Nil, Nil, verify = true, None)

  private val ignore: Array[X509Certificate] => Unit = _ => ()

  /** ALPN offering `h2` then `http/1.1` (HTTP/2 client connections): the server chooses. */
  private val offerH2 = new ApplicationProtocolConfig(
    ApplicationProtocolConfig.Protocol.ALPN,
    ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
    ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT,
    ApplicationProtocolNames.HTTP_2,
    ApplicationProtocolNames.HTTP_1_1
  )

  /** The certificates of a PEM file (`-----BEGIN CERTIFICATE-----` blocks); `Left` when the file
    * cannot be read or holds none.
    */
  def readPem(path: Path): Either[ConfigError, List[X509Certificate]] =
    def unreadable(why: String) = Left(ConfigError.Unreadable("CA file", path.toString, why))
    val bytes =
      try Right(Files.readAllBytes(path))
      catch case e: IOException => unreadable(s"cannot read $path: ${FileProblem.describe(e)}")
    bytes.flatMap { b =>
      val certs =
        try
          Right(
            CertificateFactory
              .getInstance("X.509")
              .generateCertificates(new ByteArrayInputStream(b))
              .asScala
              .collect { case c: X509Certificate => c }
              .toList
          )
        catch
          case e: CertificateException =>
            unreadable(s"$path is not a PEM certificate: ${e.getMessage}")
      certs.flatMap(cs =>
        if cs.isEmpty then unreadable(s"$path holds no certificate (no BEGIN CERTIFICATE block)")
        else Right(cs)
      )
    }

  /** The JDK's default trust manager, over its trust store plus `extra`. */
  private def trusting(extra: List[X509Certificate]): X509ExtendedTrustManager =
    def managerOf(store: KeyStore | Null) =
      val f = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm)
      f.init(store)
      f.getTrustManagers.collectFirst { case t: X509ExtendedTrustManager => t }.get
    val system = managerOf(null)
    if extra.isEmpty then system
    else
      val store = KeyStore.getInstance(KeyStore.getDefaultType)
      store.load(null, null)
      (system.getAcceptedIssuers.toList ++ extra).zipWithIndex.foreach((c, i) =>
        store.setCertificateEntry(s"ca-$i", c)
      )
      managerOf(store)

  private def extended(t: X509TrustManager): X509ExtendedTrustManager =
    new X509ExtendedTrustManager:
      def checkClientTrusted(c: Array[X509Certificate], a: String): Unit =
        t.checkClientTrusted(c, a)
      def checkServerTrusted(c: Array[X509Certificate], a: String): Unit =
        t.checkServerTrusted(c, a)
      def getAcceptedIssuers: Array[X509Certificate] = t.getAcceptedIssuers
      def checkClientTrusted(c: Array[X509Certificate], a: String, s: Socket): Unit =
        t.checkClientTrusted(c, a)
      def checkServerTrusted(c: Array[X509Certificate], a: String, s: Socket): Unit =
        t.checkServerTrusted(c, a)
      def checkClientTrusted(c: Array[X509Certificate], a: String, e: SSLEngine): Unit =
        t.checkClientTrusted(c, a)
      def checkServerTrusted(c: Array[X509Certificate], a: String, e: SSLEngine): Unit =
        t.checkServerTrusted(c, a)

  /** `inner`, with `observe` shown each server chain before `inner` checks it. */
  private final class Observing(
      inner: X509ExtendedTrustManager,
      observe: Array[X509Certificate] => Unit
  ) extends X509ExtendedTrustManager:
    def checkClientTrusted(c: Array[X509Certificate], a: String): Unit =
      inner.checkClientTrusted(c, a)
    def checkServerTrusted(c: Array[X509Certificate], a: String): Unit =
      observe(c)
      inner.checkServerTrusted(c, a)
    def getAcceptedIssuers: Array[X509Certificate] = inner.getAcceptedIssuers
    def checkClientTrusted(c: Array[X509Certificate], a: String, s: Socket): Unit =
      inner.checkClientTrusted(c, a, s)
    def checkServerTrusted(c: Array[X509Certificate], a: String, s: Socket): Unit =
      observe(c)
      inner.checkServerTrusted(c, a, s)
    def checkClientTrusted(c: Array[X509Certificate], a: String, e: SSLEngine): Unit =
      inner.checkClientTrusted(c, a, e)
    def checkServerTrusted(c: Array[X509Certificate], a: String, e: SSLEngine): Unit =
      observe(c)
      inner.checkServerTrusted(c, a, e)
