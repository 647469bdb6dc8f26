package weir.http

import java.io.ByteArrayOutputStream
import java.math.BigInteger
import java.nio.charset.StandardCharsets.{US_ASCII, UTF_8}
import java.security.{KeyPairGenerator, PrivateKey, SecureRandom, Signature}
import java.security.cert.{CertificateFactory, X509Certificate}
import java.time.{Instant, ZoneOffset}
import java.time.format.DateTimeFormatter

/** A throwaway self-signed certificate for `127.0.0.1`, made with the JDK alone: what weir's own
  * server serves during a TLS warm-up ([[WarmUp]]), so that an `https://` load's client runs its
  * TLS code before the load's clock starts.
  *
  * Why by hand: the JDK has no public API that makes a certificate, and BouncyCastle (which `weir
  * serve --tls` uses, in the command-line module) would add about 10 MB of signed jars to
  * `weir-http` for this alone. The certificate is the least that a verifying client accepts for
  * `127.0.0.1`: X.509 v3, an EC P-256 key, SHA-256 with ECDSA, the address as its subject
  * alternative name, valid from an hour ago for a day. Its key lives in memory only and is never
  * written anywhere.
  */
private[http] object LoopbackCertificate:

  /** A certificate for `127.0.0.1` and its private key, made now (a few milliseconds: an EC key and
    * one signature). Thread-safe.
    */
  def make(now: Instant = Instant.now): (X509Certificate, PrivateKey) =
    val keys = KeyPairGenerator.getInstance("EC")
    keys.initialize(256)
    val pair = keys.generateKeyPair()
    val name = seq(set(seq(CommonName, tlv(0x0c, "weir warm-up".getBytes(UTF_8)))))
    val tbs = seq(
      Version3,
      tlv(0x02, new BigInteger(63, new SecureRandom).add(BigInteger.ONE).toByteArray),
      EcdsaSha256,
      name,
      seq(utcTime(now.minusSeconds(3600)), utcTime(now.plusSeconds(86400))),
      name,
      pair.getPublic.getEncoded,
      tlv(0xa3, seq(seq(SubjectAltName, tlv(0x04, seq(tlv(0x87, Array[Byte](127, 0, 0, 1)))))))
    )
    val signer = Signature.getInstance("SHA256withECDSA")
    signer.initSign(pair.getPrivate)
    signer.update(tbs)
    val der = seq(tbs, EcdsaSha256, tlv(0x03, 0.toByte +: signer.sign()))
    val certificate = CertificateFactory
      .getInstance("X.509")
      .generateCertificate(new java.io.ByteArrayInputStream(der))
      .asInstanceOf[X509Certificate]
    (certificate, pair.getPrivate)

  private val Version3 = Array[Byte](0xa0.toByte, 3, 2, 1, 2) // [0] EXPLICIT INTEGER 2
  private val EcdsaSha256 = seq(oid(0x2a, 0x86, 0x48, 0xce, 0x3d, 4, 3, 2)) // 1.2.840.10045.4.3.2
  private val CommonName = oid(0x55, 4, 3) // 2.5.4.3
  private val SubjectAltName = oid(0x55, 0x1d, 0x11) // 2.5.29.17
  private val UtcTime = DateTimeFormatter.ofPattern("yyMMddHHmmss'Z'").withZone(ZoneOffset.UTC)

  private def oid(body: Int*): Array[Byte] = tlv(0x06, body.map(_.toByte).toArray)
  private def utcTime(t: Instant): Array[Byte] = tlv(0x17, UtcTime.format(t).getBytes(US_ASCII))
  private def seq(parts: Array[Byte]*): Array[Byte] = tlv(0x30, parts.toArray.flatten)
  private def set(parts: Array[Byte]*): Array[Byte] = tlv(0x31, parts.toArray.flatten)

  /** A DER tag, length (short or long form) and value. */
  private def tlv(tag: Int, value: Array[Byte]): Array[Byte] =
    val out = new ByteArrayOutputStream(value.length + 6)
    out.write(tag)
    val n = value.length
    if n < 0x80 then out.write(n)
    else
      val size = BigInteger.valueOf(n.toLong).toByteArray.dropWhile(_ == 0)
      out.write(0x80 | size.length)
      out.write(size)
    out.write(value)
    out.toByteArray
