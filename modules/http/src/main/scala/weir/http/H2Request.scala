package weir.http

import io.netty.buffer.Unpooled
import io.netty.handler.codec.http2.{DefaultHttp2DataFrame, DefaultHttp2Headers, Http2Headers}

/** A [[RequestSpec]] as HTTP/2 frames: the pseudo-headers (`:method`, `:scheme`, `:authority`,
  * `:path`), the spec's headers with lower-case names, and its body as one DATA frame.
  *
  * A `Host` header given in the spec becomes `:authority`; the connection-specific headers that
  * HTTP/2 forbids (`Connection`, `Keep-Alive`, `Proxy-Connection`, `Transfer-Encoding`, `Upgrade`)
  * are left out, as an HTTP/1.1-to-HTTP/2 proxy would. Pure: no state, thread-safe.
  */
private[http] object H2Request:

  private val connectionSpecific =
    Set("connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade")

  /** The HEADERS of `spec`'s request for `target`. */
  def headers(spec: RequestSpec, target: Target): Http2Headers =
    val h = new DefaultHttp2Headers()
    h.method(spec.method)
    h.scheme(if target.secure then "https" else "http")
    h.path(target.path)
    val host = spec.headers.collectFirst { case (k, v) if k.equalsIgnoreCase("host") => v }
    h.authority(
      host.getOrElse(if target.defaultPort then target.host else s"${target.host}:${target.port}")
    )
    spec.headers.foreach { (k, v) =>
      val name = k.toLowerCase
      if name != "host" && !connectionSpecific(name) then h.add(name, v): Unit
    }
    if spec.body.nonEmpty && !spec.headers.exists(_._1.equalsIgnoreCase("content-length")) then
      h.setInt("content-length", spec.body.length): Unit
    h

  /** The body as the stream's last frame, or `None` when the HEADERS end the stream. */
  def body(spec: RequestSpec): Option[DefaultHttp2DataFrame] =
    Option.when(spec.body.nonEmpty)(
      new DefaultHttp2DataFrame(Unpooled.wrappedBuffer(spec.body), true)
    )
