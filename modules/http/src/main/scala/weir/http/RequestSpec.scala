package weir.http

import io.netty.buffer.{ByteBuf, Unpooled}
import io.netty.handler.codec.http.*
import java.nio.charset.StandardCharsets.UTF_8

/** What every request of a load sends besides its URL: method, extra headers, body. Defaults:
  * `GET`, no extra headers, no body.
  */
final case class RequestSpec private (
    method: String,
    headers: List[(String, String)],
    body: Array[Byte]
):
  def withMethod(m: String): RequestSpec = copy(method = m.trim.toUpperCase)
  def withHeader(name: String, value: String): RequestSpec =
    copy(headers = headers :+ (name -> value))
  def withBody(bytes: Array[Byte]): RequestSpec = copy(body = bytes)

  private lazy val nettyMethod = HttpMethod.valueOf(method)
  private lazy val content: ByteBuf = Unpooled.unreleasableBuffer(Unpooled.wrappedBuffer(body))

  /** A fresh Netty request for `target` (Netty releases it once written). */
  private[http] def build(target: Target): FullHttpRequest =
    val request = new DefaultFullHttpRequest(
      HttpVersion.HTTP_1_1,
      nettyMethod,
      target.path,
      content.duplicate()
    )
    val h = request.headers
    h.set(HttpHeaderNames.HOST, target.authority)
    if body.nonEmpty || method == "POST" || method == "PUT" then
      h.setInt(HttpHeaderNames.CONTENT_LENGTH, body.length): Unit
    headers.foreach((k, v) => h.add(k, v))
    request

object RequestSpec:
  val default: RequestSpec = new RequestSpec("GET", Nil, Array.emptyByteArray)

  /** Parses `Name: value`; `Left` when there is no colon. */
  def header(text: String): Either[String, (String, String)] =
    text.indexOf(':') match
      case i if i > 0 => Right(text.substring(0, i).trim -> text.substring(i + 1).trim)
      case _          => Left(s"'$text' is not a header; write 'Name: value'")

  /** The body as UTF-8 bytes. */
  def text(body: String): Array[Byte] = body.getBytes(UTF_8)
