package weir.http

import io.netty.handler.codec.http.{HttpMessage, HttpResponseDecoder}

/** Netty's HTTP/1.1 response decoder, told by its [[ClientConnection]] when the request in flight
  * is a HEAD request: the answer to HEAD has a `Content-Length` but no body. (The client writes its
  * requests as bytes, so no request encoder is there to tell it.) Used on the channel's event loop
  * only.
  */
private[http] final class ResponseDecoder extends HttpResponseDecoder:
  var bodyless = false

  override protected def isContentAlwaysEmpty(msg: HttpMessage): Boolean =
    bodyless || super.isContentAlwaysEmpty(msg)
