package weir.http

import weir.ConfigError

import io.netty.buffer.{ByteBuf, ByteBufUtil}
import java.nio.charset.StandardCharsets.{US_ASCII, UTF_8}

/** What every request of a load sends besides its URL: method, extra headers, body. Defaults:
  * `GET`, no extra headers, no body.
  *
  * A request is written as HTTP/1.1 bytes directly ([[writeTo]]): everything but the path and the
  * `Host` header is encoded once per load, not once per request. A `Host` or `Content-Length`
  * header given here replaces the one weir would send.
  */
final case class RequestSpec private (
    method: String,
    headers: List[(String, String)],
    body: Array[Byte]
):
  /** The same request with method `m` (upper-cased); `Left` unless it is an HTTP token. */
  def withMethod(m: String): Either[ConfigError, RequestSpec] =
    RequestSpec.method(m).map(valid => copy(method = valid))

  /** The same request with one more header; `Left` when the name is not an HTTP token or the value
    * holds a line break (which would let a caller write a second header or a second request).
    */
  def withHeader(name: String, value: String): Either[ConfigError, RequestSpec] =
    RequestSpec
      .checkHeader(name.trim, value)
      .map((k, v) => copy(headers = headers :+ (k -> v.trim)))
      .left
      .map(ConfigError.Unreadable("header", s"$name: $value", _))

  def withBody(bytes: Array[Byte]): RequestSpec = copy(body = bytes)

  /** True for `HEAD`, whose response has headers but never a body. */
  def isHead: Boolean = method == "HEAD"

  private def has(name: String): Boolean = headers.exists(_._1.equalsIgnoreCase(name))
  private lazy val sendsHost = !has("Host")
  private lazy val saysConnection = has("Connection")
  private lazy val start: Array[Byte] = s"$method ".getBytes(US_ASCII)
  private lazy val version: Array[Byte] =
    (if sendsHost then " HTTP/1.1\r\nHost: " else " HTTP/1.1\r\n").getBytes(US_ASCII)
  private lazy val rest: Array[Byte] =
    val lines = new StringBuilder
    if sendsHost then lines.append("\r\n")
    headers.foreach((k, v) => lines.append(k).append(": ").append(v).append("\r\n"))
    val needsLength = body.nonEmpty || method == "POST" || method == "PUT"
    if needsLength && !has("Content-Length") then
      lines.append("Content-Length: ").append(body.length).append("\r\n"): Unit
    lines.append("\r\n")
    lines.toString.getBytes(UTF_8) ++ body

  /** Appends the request for `target`, as bytes on the wire, to `buf`; with `close`, a `Connection:
    * close` header too (unless the spec has a `Connection` header of its own).
    */
  private[http] def writeTo(target: Target, buf: ByteBuf, close: Boolean = false): Unit =
    buf.writeBytes(start)
    ByteBufUtil.writeUtf8(buf, target.path)
    buf.writeBytes(version)
    if sendsHost then
      ByteBufUtil.writeAscii(buf, target.host)
      if !target.defaultPort then
        buf.writeByte(':')
        ByteBufUtil.writeAscii(buf, Integer.toString(target.port)): Unit
    if close && !saysConnection then
      // After the Host value (its line ends with `rest`) or after the request line's own CRLF.
      ByteBufUtil.writeAscii(
        buf,
        if sendsHost then "\r\nConnection: close" else "Connection: close\r\n"
      ): Unit
    buf.writeBytes(rest): Unit

object RequestSpec:
  val default: RequestSpec = new RequestSpec("GET", Nil, Array.emptyByteArray)

  /** Parses `Name: value`; `Left` when there is no colon, the name is not an HTTP token, or the
    * value holds a line break.
    */
  def header(text: String): Either[ConfigError, (String, String)] =
    val checked = text.indexOf(':') match
      // Checked before trimming: a line break at either end of the value is refused too.
      case i if i > 0 =>
        checkHeader(text.substring(0, i).trim, text.substring(i + 1)).map((k, v) => k -> v.trim)
      case _ => Left(s"'$text' is not a header; write 'Name: value'")
    checked.left.map(ConfigError.Unreadable("header", text, _))

  private def checkHeader(name: String, value: String): Either[String, (String, String)] =
    if !isToken(name) then
      Left(s"'$name' is not a header name (letters, digits and !#$$%&'*+-.^_`|~ only)")
    else if value.exists(c => c == '\r' || c == '\n' || c == '\u0000') then
      Left(s"the value of '$name' holds a line break")
    else Right(name -> value)

  /** Checks an HTTP method: `Left` unless it is a token such as GET, POST or PURGE. */
  def method(text: String): Either[ConfigError, String] =
    val m = text.trim.toUpperCase
    if isToken(m) then Right(m)
    else
      Left(
        ConfigError.Unreadable(
          "HTTP method",
          text,
          s"'$text' is not an HTTP method (e.g. GET, POST, PUT)"
        )
      )

  /** The body as UTF-8 bytes. */
  def text(body: String): Array[Byte] = body.getBytes(UTF_8)

  private def isToken(s: String): Boolean =
    s.nonEmpty && s.forall(c => c < 127 && (c.isLetterOrDigit || "!#$%&'*+-.^_`|~".indexOf(c) >= 0))
