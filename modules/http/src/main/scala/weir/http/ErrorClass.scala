package weir.http
import weir.Durations

import io.netty.channel.ConnectTimeoutException
import java.io.IOException
import java.net.{ConnectException, UnknownHostException}
import java.nio.channels.ClosedChannelException

/** Why a request got no HTTP response. */
enum ErrorClass:

  /** The server refused the connection (nothing listens on the port). */
  case Refused

  /** The connection was reset or closed before the response was complete. */
  case Reset

  /** No response (or no connection) within the timeout. */
  case Timeout

  /** Anything else (unknown host, protocol error, ...). */
  case Other

  def label: String = toString.toLowerCase

object ErrorClass:

  /** The request's timeout fired. */
  final class TimedOut(after: Long)
      extends IOException(s"no response within ${Durations.showNanos(after.toDouble)}")

  /** The connection closed while a response was awaited. */
  final class ClosedEarly
      extends IOException("the connection closed before the response was complete")

  /** The class of an error a request ended with. */
  def of(error: Throwable): ErrorClass = error match
    case _: TimedOut | _: ConnectTimeoutException   => Timeout
    case _: ClosedEarly | _: ClosedChannelException => Reset
    case e: ConnectException if String.valueOf(e.getMessage).toLowerCase.contains("refused") =>
      Refused
    case _: UnknownHostException                                                            => Other
    case e: IOException if String.valueOf(e.getMessage).toLowerCase.contains("reset")       => Reset
    case e: IOException if String.valueOf(e.getMessage).toLowerCase.contains("broken pipe") => Reset
    case _                                                                                  => Other
