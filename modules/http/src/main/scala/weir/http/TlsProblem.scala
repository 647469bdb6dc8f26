package weir.http

import java.security.cert.{
  CertPathBuilderException,
  CertificateExpiredException,
  CertificateNotYetValidException,
  X509Certificate
}
import java.time.{Instant, ZoneOffset}
import java.time.format.DateTimeFormatter
import javax.net.ssl.SSLException
import scala.jdk.CollectionConverters.*

/** Why a TLS handshake with a server failed, in the words a user can act on: a certificate that is
  * not trusted, expired (or not yet valid), or made for another host; or another handshake failure.
  * [[HttpClient.probe]] fails with [[TlsProblem.Refused]] carrying one.
  */
enum TlsProblem:

  /** The certificate's chain leads to no trusted authority; `issuer` is the leaf's issuer. */
  case Untrusted(issuer: String)

  /** A certificate of the chain expired at `notAfter`. */
  case Expired(subject: String, notAfter: Instant)

  /** A certificate of the chain is valid only from `notBefore`. */
  case NotYetValid(subject: String, notBefore: Instant)

  /** The certificate names `names` (its subject alternative names, else its CN), not `host`. */
  case WrongHost(names: List[String], host: String)

  /** Anything else (the server does not speak TLS, no common protocol or cipher...). */
  case Failed(reason: String)

  /** What is wrong, in one sentence without advice (the caller knows its own options). */
  def describe: String = this match
    case Untrusted(issuer) =>
      s"the server's certificate is not trusted: its issuer ($issuer) is not a trusted certificate authority"
    case Expired(subject, at) =>
      s"the server's certificate expired on ${TlsProblem.date(at)} ($subject)"
    case NotYetValid(subject, from) =>
      s"the server's certificate is not valid before ${TlsProblem.date(from)} ($subject)"
    case WrongHost(names, host) =>
      s"the server's certificate is for ${names.mkString(", ")}, not for $host"
    case Failed(reason) => s"the TLS handshake failed: $reason"

object TlsProblem:

  /** A TLS handshake refused for `problem`; `cause` is the JDK's own error. */
  final case class Refused(problem: TlsProblem, cause: Throwable)
      extends SSLException(problem.describe, cause)

  private val dates =
    DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss 'UTC'").withZone(ZoneOffset.UTC)
  private def date(at: Instant): String = dates.format(at)

  /** The problem behind `error`, a failed handshake with `host` that presented `chain` (empty when
    * none was seen), judged at `now`. A certificate out of its validity period is said first (even
    * when it is also untrusted: trusting it would not help), then a wrong host, then an untrusted
    * issuer.
    */
  def of(error: Throwable, host: String, chain: List[X509Certificate], now: Instant): TlsProblem =
    val causes = Iterator.iterate(error)(_.getCause).takeWhile(_ != null).take(20).toList
    def said(text: String) = causes.exists(c => String.valueOf(c.getMessage).contains(text))
    val expired = chain.find(_.getNotAfter.toInstant.isBefore(now))
    val early = chain.find(_.getNotBefore.toInstant.isAfter(now))
    expired
      .map(c => Expired(subject(c), c.getNotAfter.toInstant))
      .orElse(early.map(c => NotYetValid(subject(c), c.getNotBefore.toInstant)))
      .getOrElse {
        if said("subject alternative") || said("No name matching") then
          WrongHost(chain.headOption.fold(Nil)(names), host)
        else if causes.exists(_.isInstanceOf[CertPathBuilderException]) ||
          said("certification path") || said("PKIX path")
        then Untrusted(chain.headOption.fold("unknown")(_.getIssuerX500Principal.getName))
        else if causes.exists(_.isInstanceOf[CertificateExpiredException]) then
          Expired("a certificate of its chain", now)
        else if causes.exists(_.isInstanceOf[CertificateNotYetValidException]) then
          NotYetValid("a certificate of its chain", now)
        else Failed(Option(causes.last.getMessage).getOrElse(causes.last.toString))
      }

  private def subject(c: X509Certificate): String = c.getSubjectX500Principal.getName

  /** The DNS names and IP addresses a certificate is for; its subject when it has none. */
  private def names(c: X509Certificate): List[String] =
    val alternative = Option(c.getSubjectAlternativeNames)
      .fold(Nil)(_.asScala.toList)
      .collect {
        case entry if entry.size >= 2 && (entry.get(0) == 2 || entry.get(0) == 7) =>
          String.valueOf(entry.get(1))
      }
    if alternative.nonEmpty then alternative else List(subject(c))
