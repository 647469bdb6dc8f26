package weir.postgres

import cats.effect.Sync
import fs2.{Chunk, Pull, Stream}
import java.io.InputStream
import java.nio.file.{Files, Path}
import weir.Capacity

/** A psql `\copy ... from FILE` ([[SqlPiece.ClientCopy]]) as the pieces [[SqlApplier]] sends: its
  * `COPY ... FROM STDIN` statement, the file's bytes as they are (the server checks them) in chunks
  * of whole lines of at most the chunk size (a longer line is cut, as [[SqlSplitter]] cuts a COPY
  * body), then the end of the body. The file is read as it is sent, on the blocking pool; its bytes
  * count with the file that holds the line (`tally`).
  *
  * '''Errors.''' A file that does not exist, is a directory or is not readable fails the apply at
  * the line ([[SplitError.CopyFileFailed]]), before its COPY is sent.
  */
private[postgres] object ClientCopies:

  def body[F[_]](
      copy: SqlPiece.ClientCopy,
      open: SqlFile => InputStream,
      maxChunk: Capacity,
      tally: FileBlocks.Tally
  )(using F: Sync[F]): Stream[F, SqlPiece] =
    val path = Path.of(copy.path)
    Stream.eval(F.blocking(SqlFile.unreadable(path).toLeft(Files.size(path)))).flatMap {
      case Left(problem) =>
        Stream.raiseError[F](SplitError.CopyFileFailed(copy.at, copy.path, reason(problem)))
      case Right(size) =>
        val file = SqlFile(path, copy.path, size, transactional = true)
        val bytes = FileBlocks[F](open(file), maxChunk, tally.including)
        Stream.emit(SqlPiece.Statement(copy.sql, copy.at, copy.end, true, Some(copy.path))) ++
          lines(bytes, maxChunk).map(c => SqlPiece.CopyData(c, rows(c), copy.end)) ++
          Stream.emit(SqlPiece.CopyEnd(copy.at, copy.end, terminated = true))
    }

  private def reason(problem: SqlFile.Unreadable): String = problem match
    case SqlFile.Unreadable.Missing   => "no such file (\\copy reads it from the working directory)"
    case SqlFile.Unreadable.Directory => "a directory, not a file"
    case SqlFile.Unreadable.Denied    => "not readable (permission denied)"

  /** `bytes` in chunks of at most `max` bytes, each cut after its last line break (a chunk with
    * none is cut at `max`), copied out of the reader's array; the rest at the end.
    */
  private[postgres] def lines[F[_]](bytes: Stream[F, Byte], max: Int): Stream[F, Chunk[Byte]] =
    def go(s: Stream[F, Byte], carry: Array[Byte]): Pull[F, Chunk[Byte], Unit] =
      s.pull.uncons.flatMap {
        case None =>
          if carry.isEmpty then Pull.done else Pull.output1(Chunk.array(carry))
        case Some((chunk, rest)) =>
          var buffer = carry ++ chunk.toArray
          val out = Vector.newBuilder[Chunk[Byte]]
          while buffer.length >= max do
            val newline = buffer.lastIndexOf('\n'.toByte, max - 1)
            val cut = if newline >= 0 then newline + 1 else max
            out += Chunk.array(buffer, 0, cut)
            buffer = java.util.Arrays.copyOfRange(buffer, cut, buffer.length)
          Pull.output(Chunk.from(out.result())) >> go(rest, buffer)
      }
    go(bytes, Array.emptyByteArray).stream

  private def rows(chunk: Chunk[Byte]): Int =
    var n = 0
    chunk.foreach(b => if b == '\n' then n += 1)
    n
