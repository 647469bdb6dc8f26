package weir.cli.serve

import java.math.BigInteger
import java.security.{KeyPairGenerator, PrivateKey, SecureRandom}
import java.security.cert.X509Certificate
import java.time.Instant
import java.util.Date
import org.bouncycastle.asn1.x500.X500Name
import org.bouncycastle.asn1.x509.{BasicConstraints, Extension, GeneralName, GeneralNames, KeyUsage}
import org.bouncycastle.cert.jcajce.{JcaX509CertificateConverter, JcaX509v3CertificateBuilder}
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder
import scala.concurrent.duration.*

/** X.509 certificates made in the process (BouncyCastle's builder over the JDK's own keys and
  * signatures): `weir serve --tls`'s self-signed certificate, and the certificate authorities and
  * server certificates of the TLS tests. EC P-256 keys, SHA-256 with ECDSA. Blocking (key
  * generation reads the system's randomness): call it on a blocking thread.
  */
object Certificates:

  /** A certificate and its private key. */
  final case class Issued(certificate: X509Certificate, key: PrivateKey)

  /** How long `weir serve --tls`'s own certificate is valid. */
  val SelfSignedValidity: FiniteDuration = 30.days

  /** A self-signed certificate for `names` (DNS names or IP addresses), valid from an hour before
    * `now` for [[SelfSignedValidity]].
    */
  def selfSigned(names: List[String], now: Instant): Issued =
    issue(
      s"weir serve (${names.headOption.getOrElse("localhost")})",
      names,
      None,
      now.minusSeconds(3600),
      now.plusSeconds(SelfSignedValidity.toSeconds),
      ca = false
    )

  /** A certificate with common name `cn` for `names` (its subject alternative names: DNS names or
    * IP addresses), valid from `from` to `until`, signed by `by` (self-signed when `None`); a
    * certificate authority when `ca`.
    */
  def issue(
      cn: String,
      names: List[String],
      by: Option[Issued],
      from: Instant,
      until: Instant,
      ca: Boolean
  ): Issued =
    val keys = KeyPairGenerator.getInstance("EC")
    keys.initialize(256)
    val pair = keys.generateKeyPair()
    val subject = new X500Name(s"CN=$cn")
    val issuer =
      by.fold(subject)(i => X500Name.getInstance(i.certificate.getSubjectX500Principal.getEncoded))
    val builder = new JcaX509v3CertificateBuilder(
      issuer,
      new BigInteger(64, new SecureRandom).abs.add(BigInteger.ONE),
      Date.from(from),
      Date.from(until),
      subject,
      pair.getPublic
    )
    if names.nonEmpty then
      val general = names.map(n =>
        if isAddress(n) then new GeneralName(GeneralName.iPAddress, n)
        else new GeneralName(GeneralName.dNSName, n)
      )
      builder.addExtension(
        Extension.subjectAlternativeName,
        false,
        new GeneralNames(general.toArray)
      ): Unit
    builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(ca))
    val usage =
      if ca then KeyUsage.keyCertSign | KeyUsage.cRLSign
      else KeyUsage.digitalSignature | KeyUsage.keyEncipherment
    builder.addExtension(Extension.keyUsage, true, new KeyUsage(usage))
    val signer =
      new JcaContentSignerBuilder("SHA256withECDSA").build(by.fold(pair.getPrivate)(_.key))
    val certificate = new JcaX509CertificateConverter().getCertificate(builder.build(signer))
    Issued(certificate, pair.getPrivate)

  /** True for an IPv4 or IPv6 literal (not a DNS name). */
  private[serve] def isAddress(name: String): Boolean =
    name.contains(':') || name.matches("""\d{1,3}(\.\d{1,3}){3}""")
