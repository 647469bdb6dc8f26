package weir.postgres

import fs2.Chunk
import java.io.ByteArrayOutputStream
import java.nio.charset.StandardCharsets.UTF_8
import scala.collection.mutable.ArrayBuffer

/** psql's `-a` (`ECHO` `all`) for [[SqlSplitter]]: each line of the file as it is read, as a
  * [[SqlPiece.Line]] put before the pieces that end on it, as psql prints a line when it reads it
  * and then runs the statements it completes. Lines of a `COPY ... FROM STDIN` body, and empty
  * lines, are not said, as psql says neither.
  *
  * Fed each block of the file after the lexer, with the pieces the lexer completed in it; holds the
  * pieces of a line not yet ended (and that line's bytes) until it ends. Mutable and
  * single-threaded, as the lexer it follows.
  */
private[postgres] final class LineEcho(file: String, startOffset: Long):
  private var offset = startOffset // the file offset of the next byte to scan
  private var lineNo = 1L
  private val line = new ByteArrayOutputStream
  private val held = ArrayBuffer.empty[SqlPiece]
  private var held0 = 0 // the first piece of `held` not given out yet
  // In a COPY body: its end's offset once its CopyEnd came, -1 before; outside one, None.
  private var body: Option[Long] = None

  /** The pieces to give out after the block `bytes(from until until)`, which the lexer has read and
    * in which it completed `pieces`.
    */
  def block(bytes: Array[Byte], from: Int, until: Int, pieces: Chunk[SqlPiece]): Chunk[SqlPiece] =
    pieces.foreach(held += _)
    val out = ArrayBuffer.empty[SqlPiece]
    var i = from
    while i < until do
      body match
        case Some(_) =>
          val ended = passBody(out)
          val stop =
            if ended >= 0 then math.min(until.toLong, i + (ended - offset)) else until.toLong
          offset += stop - i
          i = stop.toInt
          if ended >= 0 && offset == ended then body = None
        case None =>
          var j = i
          while j < until && bytes(j) != '\n' do j += 1
          line.write(bytes, i, j - i)
          offset += j - i
          if j < until then
            offset += 1; lineEnded(out); lineNo += 1
            i = j + 1
          else i = j
    compact()
    Chunk.from(out)

  /** The end of the file: its last line, if it has no line break, then every piece held. */
  def finish(pieces: Chunk[SqlPiece]): Chunk[SqlPiece] =
    pieces.foreach(held += _)
    val out = ArrayBuffer.empty[SqlPiece]
    if body.isEmpty then say(out)
    while held0 < held.size do
      out += held(held0); held0 += 1
    held.clear(); held0 = 0
    Chunk.from(out)

  /** What is held, given out as it is: before an error in the block. */
  def abandon(pieces: Chunk[SqlPiece]): Chunk[SqlPiece] =
    line.reset(); body = Some(-1L)
    finish(pieces)

  // A line ended at `offset`: said, then the pieces that end on it; a COPY's body follows its line.
  private def lineEnded(out: ArrayBuffer[SqlPiece]): Unit =
    say(out)
    while held0 < held.size && held(held0).end.bytes <= offset do
      val piece = held(held0)
      out += piece; held0 += 1
      piece match
        case s: SqlPiece.Statement if s.copyFromStdin && s.bodyFrom.isEmpty => body = Some(-1L)
        case _                                                              => ()

  // In a body: gives out its pieces held; the body's end offset once its CopyEnd is among them.
  private def passBody(out: ArrayBuffer[SqlPiece]): Long =
    var ended = body.getOrElse(-1L)
    while ended < 0 && held0 < held.size do
      val piece = held(held0)
      out += piece; held0 += 1
      piece match
        case e: SqlPiece.CopyEnd =>
          ended = e.end.bytes; body = Some(ended); lineNo = e.end.lines + 1
        case _ => ()
    ended

  private def say(out: ArrayBuffer[SqlPiece]): Unit =
    if line.size > 0 then
      val text = line.toString(UTF_8).stripSuffix("\r")
      out += SqlPiece.Line(text, SqlPosition(file, lineNo, 1), Mark(offset, lineNo))
      line.reset()

  private def compact(): Unit =
    if held0 > 0 then
      held.remove(0, held0); held0 = 0
