package weir.http

import io.netty.buffer.ByteBuf
import java.io.IOException
import java.nio.charset.StandardCharsets.US_ASCII

/** Reads the HTTP/1.x responses of one client connection from its bytes as they arrive, keeping
  * only what the load client needs: the status code, whether the connection stays open, and where
  * the body ends (`Content-Length`, chunked coding, or the connection's close). Header values are
  * not stored and bodies are skipped, never copied.
  *
  * Why not Netty's `HttpResponseDecoder`: it builds a header map and a message object per response;
  * at zero delay that was about an eighth of the client's CPU, and its `decode` the second-longest
  * C2 compilation while a load warms up (docs/adr/0003-http-stack.md, "The start of a load").
  *
  * Interim responses (1xx but 101) are skipped. The answer to a HEAD request (see [[bodyless]]),
  * 204 and 304 have no body whatever their headers say. A response with neither a length nor
  * chunked coding ends when the connection closes ([[endsAtClose]]).
  *
  * Not thread-safe: used on its connection's event loop only. Malformed input raises
  * [[ResponseParser.Malformed]], after which the parser's state is undefined and the connection
  * must be closed.
  */
private[http] final class ResponseParser:
  import ResponseParser.*

  /** Set before each request: true for HEAD, whose answer has no body whatever its headers say. */
  var bodyless = false

  private var state = StatusLine
  private var code = 0
  private var persistent = true
  private var contentLength = -1L
  private var chunked = false
  private var otherCoding = false
  private var remaining = 0L
  private var line = new Array[Byte](128) // the line being read, without its CR LF
  private var lineLength = 0

  /** The status code of the response in progress, or of the last one read whole. */
  def status: Int = code

  /** Whether the connection may carry another request after the last response read whole. */
  def keepAlive: Boolean = persistent

  /** True while the response in progress has no length: its body ends when the connection closes.
    */
  def endsAtClose: Boolean = state == UntilClose

  /** The connection closed: a body that lasts until then is complete. */
  def closed(): Unit = if state == UntilClose then state = StatusLine

  /** Consumes bytes of `in` up to the end of the response in progress: true when that response is
    * complete, [[status]] and [[keepAlive]] then describe it and the next bytes start a new one.
    * Bytes after the end stay in `in`.
    */
  def read(in: ByteBuf): Boolean =
    var complete = false
    while !complete && in.isReadable do
      if state == Body || state == ChunkData then
        val n = math.min(remaining, in.readableBytes.toLong).toInt
        in.skipBytes(n)
        remaining -= n
        if remaining == 0 then if state == Body then complete = finish() else state = ChunkEnd
      else if state == UntilClose then in.skipBytes(in.readableBytes): Unit
      else if readLine(in) then complete = onLine()
    complete

  /** Appends `in`'s bytes up to the next LF to [[line]]; true once the line is whole. */
  private def readLine(in: ByteBuf): Boolean =
    val found = in.bytesBefore(LF)
    val take = if found < 0 then in.readableBytes else found
    if lineLength + take > MaxLine then
      throw Malformed(s"a line of the response is longer than $MaxLine bytes")
    if lineLength + take > line.length then
      line = java.util.Arrays.copyOf(line, math.min(MaxLine, 2 * (lineLength + take)))
    in.readBytes(line, lineLength, take)
    lineLength += take
    if found < 0 then false
    else
      in.skipBytes(1)
      if lineLength > 0 && line(lineLength - 1) == CR then lineLength -= 1
      true

  /** Acts on the whole line in [[line]]; true when it ends the response. */
  private def onLine(): Boolean =
    val n = lineLength
    lineLength = 0
    state match
      case StatusLine =>
        if n > 0 then // empty lines before a status line are ignored (RFC 9112, 2.2)
          startResponse(n)
          state = Header
        false
      case Header =>
        if n == 0 then headersEnd()
        else
          header(n)
          false
      case ChunkSize =>
        remaining = chunkSize(n)
        state = if remaining == 0 then Trailer else ChunkData
        false
      case ChunkEnd =>
        if n != 0 then throw Malformed("a chunk is longer than its size")
        state = ChunkSize
        false
      case _ => // Trailer: fields after the last chunk, up to an empty line
        n == 0 && finish()

  /** `HTTP/1.x SSS reason`. */
  private def startResponse(n: Int): Unit =
    val shaped = n >= 12 && startsWith("HTTP/1.") && (line(7) == '0' || line(7) == '1') &&
      line(8) == ' ' && isDigit(line(9)) && isDigit(line(10)) && isDigit(line(11)) &&
      (n == 12 || line(12) == ' ')
    if !shaped then throw Malformed(s"not an HTTP/1.x status line: '${text(0, math.min(n, 80))}'")
    code = (line(9) - '0') * 100 + (line(10) - '0') * 10 + (line(11) - '0')
    persistent = line(7) == '1' // HTTP/1.0 closes unless it says keep-alive
    contentLength = -1L
    chunked = false
    otherCoding = false

  private def header(n: Int): Unit =
    var colon = 0
    while colon < n && line(colon) != ':' do colon += 1
    if colon == n then throw Malformed(s"a header line without ':': '${text(0, math.min(n, 80))}'")
    var from = colon + 1
    var to = n
    while from < to && (line(from) == ' ' || line(from) == '\t') do from += 1
    while to > from && (line(to - 1) == ' ' || line(to - 1) == '\t') do to -= 1
    if named(colon, "content-length") then
      val length = decimal(from, to)
      if contentLength >= 0 && contentLength != length then
        throw Malformed(s"two different Content-Length headers: $contentLength and $length")
      contentLength = length
    else if named(colon, "transfer-encoding") then
      val codings = text(from, to).toLowerCase
      chunked = codings.split(',').last.trim == "chunked"
      otherCoding = !chunked
    else if named(colon, "connection") then
      val options = text(from, to).toLowerCase.split(',').map(_.trim)
      if options.contains("close") then persistent = false
      else if options.contains("keep-alive") then persistent = true

  /** The empty line after the headers: decides where the body ends. True when it ends here. */
  private def headersEnd(): Boolean =
    if code >= 100 && code < 200 && code != 101 then
      state = StatusLine // an interim response: the final one follows
      false
    else if bodyless || code == 204 || code == 304 || code == 101 then finish()
    else if chunked then
      state = ChunkSize
      false
    else if !otherCoding && contentLength == 0 then finish()
    else if !otherCoding && contentLength > 0 then
      remaining = contentLength
      state = Body
      false
    else
      persistent = false
      state = UntilClose
      false

  /** The response read so far is whole: the next bytes start a new one. */
  private def finish(): Boolean =
    state = StatusLine
    true

  private def chunkSize(n: Int): Long =
    var i = 0
    var size = 0L
    while i < n && hexValue(line(i)) >= 0 do
      size = size * 16 + hexValue(line(i))
      if size > MaxChunk then throw Malformed(s"a chunk larger than $MaxChunk bytes")
      i += 1
    if i == 0 || (i < n && line(i) != ';' && line(i) != ' ' && line(i) != '\t') then
      throw Malformed(s"not a chunk size: '${text(0, math.min(n, 80))}'")
    size

  private def decimal(from: Int, to: Int): Long =
    if from == to then throw Malformed("an empty Content-Length")
    var i = from
    var value = 0L
    while i < to do
      if !isDigit(line(i)) || value > MaxChunk then
        throw Malformed(s"not a Content-Length: '${text(from, math.min(to, from + 80))}'")
      value = value * 10 + (line(i) - '0')
      i += 1
    value

  /** Whether the header name `line[0, length)` is `lower`, ignoring ASCII case. */
  private def named(length: Int, lower: String): Boolean =
    length == lower.length && {
      var i = 0
      while i < length && toLower(line(i)) == lower.charAt(i) do i += 1
      i == length
    }

  private def startsWith(prefix: String): Boolean =
    var i = 0
    while i < prefix.length && line(i) == prefix.charAt(i) do i += 1
    i == prefix.length

  private def text(from: Int, to: Int): String = new String(line, from, to - from, US_ASCII)

private[http] object ResponseParser:

  /** The response's bytes are not HTTP/1.x as the client reads it. */
  final class Malformed(message: String) extends IOException(s"malformed response: $message")

  /** Longest status or header line accepted, as Netty's decoder (8 KiB) with room to spare. */
  val MaxLine = 16 * 1024

  /** Largest body or chunk size accepted: a terabyte, far beyond any answer but safe from overflow.
    */
  private val MaxChunk = 1L << 40

  private val LF: Byte = '\n'
  private val CR: Byte = '\r'

  private inline val StatusLine = 0
  private inline val Header = 1
  private inline val Body = 2
  private inline val ChunkSize = 3
  private inline val ChunkData = 4
  private inline val ChunkEnd = 5
  private inline val Trailer = 6
  private inline val UntilClose = 7

  private def isDigit(b: Byte): Boolean = b >= '0' && b <= '9'

  private def toLower(b: Byte): Int = if b >= 'A' && b <= 'Z' then b + 32 else b.toInt

  private def hexValue(b: Byte): Int =
    if b >= '0' && b <= '9' then b - '0'
    else if b >= 'a' && b <= 'f' then b - 'a' + 10
    else if b >= 'A' && b <= 'F' then b - 'A' + 10
    else -1
