package weir.postgres

import cats.effect.Sync
import fs2.{Chunk, Pipe, Pull, Stream}
import weir.{Capacity, Fatal, WeirError}

/** Cuts a SQL file's bytes into [[SqlPiece]]s: whole statements, each with its file, line and
  * column, and the bodies of `COPY ... FROM STDIN` as chunks of whole lines.
  *
  * '''Memory.''' It holds at most one statement and one COPY chunk (at most `maxChunk` bytes)
  * besides the input block being read, whatever the size of the file: a 1 GB COPY body streams
  * through in 256 KB pieces.
  *
  * '''Syntax''' (as PostgreSQL's lexer, with `standard_conforming_strings` on). A `;` ends a
  * statement only outside `'...'` (`''` inside), `E'...'`/`e'...'` (backslash escapes), `"..."`,
  * `$tag$...$tag$` (`$1` is a parameter, not a quote), `--` comments and nested `/* */` comments,
  * and, as psql 15 reads it, outside parentheses and the `BEGIN ATOMIC ... END` body of a `CREATE
  * FUNCTION` or `PROCEDURE` ([[StatementDepth]]). Text after the last `;` is a statement too (psql
  * sends it). A COPY body starts on the line after its statement and ends at a line `\.` (LF or
  * CRLF) or at the end of the file. A UTF-8 byte order mark is skipped; CRLF files work. A file
  * that starts as a pg_dump archive or a compressed file does is refused at once ([[NotSqlText]]).
  *
  * '''Errors''' are [[SplitError]]s raised in the stream after the pieces before them: a psql
  * meta-command (a line starting with `\`) other than `\i`, `\copy`, `\set` and `\unset` (pieces of
  * their own; `\restrict` and `\unrestrict`, which pg_dump writes since 17.6, 16.10, 15.14, 14.19
  * and 13.22, are skipped), invalid UTF-8, an unterminated quote or comment (at its start), `COPY
  * ... TO STDOUT` and `SET standard_conforming_strings = off`. A fatal error of the JVM while
  * splitting (out of memory: a statement larger than the heap) or raised by the input as
  * [[weir.WeirError.Fatal]] (see [[FileBlocks]]) is raised as [[ApplyError.Fatal]] naming the file
  * and the line reading had reached, never lost with the fiber that ran it
  * (docs/adr/0013-apply-sql-speed.md, "Round 3").
  *
  * The pipe is pure: each run of the resulting stream reads afresh with a lexer of its own.
  */
object SqlSplitter:

  /** The largest COPY chunk: 256 KB (codd sends 64 KB; four times fewer steps through the engine
    * and hand-offs to the driver's thread for the same bytes, docs/adr/0013-apply-sql-speed.md).
    */
  val defaultMaxChunk: Capacity = Capacity(262144)

  private val bom = Chunk[Byte](0xef.toByte, 0xbb.toByte, 0xbf.toByte)

  /** The pipe for a file named `file` (the name goes into positions and messages only); `lines`:
    * each line read is a [[SqlPiece.Line]] too, before the pieces that end on it (psql's `-a`,
    * [[LineEcho]]).
    */
  def pipe[F[_]: Sync](
      file: String,
      maxChunk: Capacity = defaultMaxChunk,
      lines: Boolean = false
  ): Pipe[F, Byte, SqlPiece] =
    bytes =>
      // The byte order mark and what is not SQL text are looked for in the first bytes, wherever
      // blocks are cut. Blocks shorter than that are copied before the next is pulled
      // ([[FileBlocks]] reuses its array).
      def start(first: Chunk[Byte], rest: Stream[F, Byte]): Pull[F, SqlPiece, Unit] =
        NotSqlText.of(first.take(NotSqlText.Sniffed).toArray) match
          case Some((what, instead)) => Pull.raiseError[F](SplitError.NotSql(file, what, instead))
          case None if first.take(3) == bom =>
            split(file, maxChunk, 3L, Stream.chunk(first.drop(3)) ++ rest, lines).pull.echo
          case None => split(file, maxChunk, 0L, Stream.chunk(first) ++ rest, lines).pull.echo
      def head(held: Chunk[Byte], rest: Stream[F, Byte]): Pull[F, SqlPiece, Unit] =
        if held.size >= NotSqlText.Sniffed then start(held, rest)
        else
          rest.pull.uncons.flatMap {
            case Some((block, tail)) if held.isEmpty && block.size >= NotSqlText.Sniffed =>
              start(block, tail)
            case Some((block, tail)) => head(held ++ Chunk.array(block.toArray), tail)
            case None                => start(held, Stream.empty)
          }
      head(Chunk.empty, bytes).stream

  private def split[F[_]: Sync](
      file: String,
      maxChunk: Int,
      start: Long,
      bytes: Stream[F, Byte],
      lines: Boolean
  ): Stream[F, SqlPiece] =
    Stream.eval(Sync[F].delay(new SqlLexer(file, maxChunk, start))).flatMap { lexer =>
      val echo = Option.when(lines)(new LineEcho(file, start))
      // Pieces completed before an error in the same block are emitted before it is raised;
      // `said`: the pieces with the lines read put in ([[LineEcho]]), when they are asked for.
      def run(
          read: => Unit,
          said: (LineEcho, Chunk[SqlPiece]) => Chunk[SqlPiece]
      ): F[(Chunk[SqlPiece], Option[Exception])] = Sync[F].delay {
        try
          read
          val pieces = lexer.drain()
          (echo.fold(pieces)(said(_, pieces)), None)
        catch
          case e: SplitError =>
            val pieces = lexer.drain()
            (echo.fold(pieces)(_.abandon(pieces)), Some(e))
          // What the lexer holds (a statement as large as the heap) is let go at once.
          case t: Throwable if Fatal(t) =>
            lexer.release()
            (Chunk.empty, Some(located(Fatal.caught(t))))
      }
      // A fatal error, at the line reading had reached.
      def located(e: WeirError.Fatal): ApplyError.Fatal =
        ApplyError.Fatal(file, Some(lexer.lineNow), e.cause, reading = true)
      def emit(
          result: (Chunk[SqlPiece], Option[Exception]),
          next: => Pull[F, SqlPiece, Unit]
      ): Pull[F, SqlPiece, Unit] =
        Pull.output(result._1) >> result._2.fold(next)(e => Pull.raiseError[F](e))
      def go(blocks: Stream[F, Byte]): Pull[F, SqlPiece, Unit] =
        blocks.pull.uncons
          .handleErrorWith {
            case e: WeirError.Fatal => Pull.raiseError[F](located(e))
            case other              => Pull.raiseError[F](other)
          }
          .flatMap {
            case Some((block, rest)) =>
              val slice = block.toArraySlice
              val end = slice.offset + slice.length
              Pull
                .eval(
                  run(
                    lexer.feed(slice.values, slice.offset, end),
                    _.block(slice.values, slice.offset, end, _)
                  )
                )
                .flatMap(emit(_, go(rest)))
            case None => Pull.eval(run(lexer.finish(), _.finish(_))).flatMap(emit(_, Pull.done))
          }
      go(bytes).stream
    }
