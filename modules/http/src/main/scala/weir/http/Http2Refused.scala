package weir.http

import java.io.IOException

/** A server that was asked for HTTP/2 and does not speak it: over TLS it chose `http/1.1` (or no
  * protocol) in ALPN; over cleartext (prior knowledge) it did not answer the connection preface
  * with a SETTINGS frame in time, or closed the connection, or sent something that is not HTTP/2.
  * The message says which and what to do (drop `--http2`).
  */
final class Http2Refused(val host: String, val port: Int, val why: String)
    extends IOException(
      s"$host:$port does not speak HTTP/2: $why; drop --http2 to load it over HTTP/1.1"
    )
