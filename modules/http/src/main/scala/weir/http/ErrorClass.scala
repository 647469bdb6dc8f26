package weir.http

import io.netty.channel.ConnectTimeoutException
import java.io.IOException
import java.net.{ConnectException, UnknownHostException}
import java.nio.channels.ClosedChannelException
import weir.Durations

/** Why a request got no HTTP response. */
enum ErrorClass:

  /** The server refused the connection (nothing listens on the port). */
  case Refused

  /** The connection was reset or closed before the response was complete. */
  case Reset

  /** No response (or no connection) within the timeout. */
  case Timeout

  /** The client ran out of file descriptors (`Too many open files`): raise `ulimit -n` or lower the
    * concurrency.
    */
  case Descriptors

  /** The request was never sent: its line of the URL file is not a URL weir can request. */
  case Input

  /** The TLS handshake failed (a certificate refused, no common protocol, not a TLS server). */
  case Tls

  /** Anything else (unknown host, protocol error, ...). */
  case Other

  def label: String = toString.toLowerCase

  /** True for the failures a retry may cure: refused and reset connections, timeouts. */
  def retryable: Boolean = this == Refused || this == Reset || this == Timeout

  /** What to do about it, when weir knows. */
  def hint: Option[String] = this match
    case Descriptors =>
      Some("the client ran out of file descriptors: raise the limit (ulimit -n) or lower -c")
    case Refused => Some("nothing listens there: is the server running?")
    case Reset =>
      Some(
        "the server closed connections before answering: is it overloaded, or does it speak https:// (TLS) on that port?"
      )
    case Tls =>
      Some("trust the server's CA with --cacert FILE, or skip verification with --insecure")
    case _ => None

object ErrorClass:

  /** The request's timeout fired. */
  final class TimedOut(after: Long)
      extends IOException(s"no response within ${Durations.showNanos(after.toDouble)}")

  /** The connection closed while a response was awaited. */
  final class ClosedEarly
      extends IOException("the connection closed before the response was complete")

  /** The class of an error a request ended with. */
  def of(error: Throwable): ErrorClass =
    def says(text: String) = String.valueOf(error.getMessage).toLowerCase.contains(text)
    error match
      case _: TimedOut | _: ConnectTimeoutException               => Timeout
      case _: ClosedEarly | _: ClosedChannelException             => Reset
      case _: javax.net.ssl.SSLException                          => Tls
      case _ if says("too many open files")                       => Descriptors
      case _: ConnectException if says("refused")                 => Refused
      case _: UnknownHostException                                => Other
      case _: IOException if says("reset") || says("broken pipe") => Reset
      case _                                                      => Other
