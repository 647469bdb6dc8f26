package weir.postgres

import cats.effect.IO
import cats.syntax.all.*
import fs2.{Chunk, Stream}
import java.nio.charset.StandardCharsets.UTF_8
import munit.CatsEffectSuite
import weir.Capacity

/** COPY bodies wherever the file's blocks are cut: the lexer scans bodies in bulk (line breaks
  * found by a tight loop, lines copied in runs), so every state it carries from one block to the
  * next (a partial line, a `\`, `\.` or `\.\r` at a line's start, half a UTF-8 character) is cut
  * here at every position, and the pieces must be those of the uncut file.
  */
class SqlSplitterCopySuite extends CatsEffectSuite:

  private def capacity(n: Int): Capacity = Capacity.from(n).fold(e => fail(e.getMessage), identity)

  /** The pieces of `bytes` read in blocks cut at `cuts` (positions in the file). */
  private def split(bytes: Array[Byte], cuts: List[Int], maxChunk: Int): IO[List[SqlPiece]] =
    val bounds = (0 :: cuts.filter(c => c > 0 && c < bytes.length) ::: List(bytes.length)).distinct
    val blocks = bounds.zip(bounds.tail).map((a, b) => Chunk.array(bytes.slice(a, b)))
    Stream
      .emits(blocks)
      .flatMap(Stream.chunk)
      .covary[IO]
      .through(SqlSplitter.pipe[IO]("f.sql", capacity(maxChunk)))
      .compile
      .toList

  /** What a split says, COPY chunks as text with their rows. */
  private def shown(pieces: List[SqlPiece]): List[String] = pieces.map {
    case SqlPiece.Statement(sql, at, end, copy, _, _, _) => s"stmt $sql @${at.show} ${end} $copy"
    case SqlPiece.CopyData(bytes, rows, end) =>
      s"data ${new String(bytes.toArray, UTF_8)} rows=$rows $end"
    case SqlPiece.CopyEnd(at, end, terminated) => s"end ${at.show} $end $terminated"
    case SqlPiece.Include(path, _, at, _)      => s"include $path @${at.show}"
    case SqlPiece.ClientCopy(sql, path, at, _) => s"\\copy $sql from $path @${at.show}"
    case SqlPiece.Variable(name, value, at, _) => s"\\set $name $value @${at.show}"
    case SqlPiece.Echo(text, at, _)            => s"\\echo $text @${at.show}"
    case SqlPiece.Conditional(c, e, at, _)     => s"$c $e @${at.show}"
    case SqlPiece.Connect(db, at, _)           => s"\\connect $db @${at.show}"
    case SqlPiece.Results(at, _)               => s"results @${at.show}"
    case SqlPiece.Quit(at, _)                  => s"\\q @${at.show}"
    case SqlPiece.Line(text, at, _)            => s"line $text @${at.show}"
  }

  /** The uncut file's pieces, then the same for a cut at every position and two cuts at many. */
  private def everyCut(text: String, maxChunk: Int)(check: List[SqlPiece] => Unit): IO[Unit] =
    val bytes = text.getBytes(UTF_8)
    split(bytes, Nil, maxChunk).flatMap { whole =>
      check(whole)
      val singles = (1 until bytes.length).toList.map(List(_))
      val pairs = for
        a <- (1 until bytes.length by 3).toList
        b <- (a + 1 until bytes.length by 5).toList
      yield List(a, b)
      (singles ++ pairs).traverse_(cuts =>
        split(bytes, cuts, maxChunk).map(got =>
          assertEquals(shown(got), shown(whole), s"cut at $cuts")
        )
      )
    }

  private def data(pieces: List[SqlPiece]): String =
    pieces.collect { case SqlPiece.CopyData(b, _, _) => new String(b.toArray, UTF_8) }.mkString

  private def rows(pieces: List[SqlPiece]): Int =
    pieces.collect { case SqlPiece.CopyData(_, r, _) => r }.sum

  private def ends(pieces: List[SqlPiece]): List[Boolean] =
    pieces.collect { case e: SqlPiece.CopyEnd => e.terminated }

  test("a CRLF terminator, \\N and \\. inside lines: the same pieces at every cut") {
    val body = "1\t\\N\r\n2\tx \\. y\r\n\\N\tz\\.\r\n3\tcaf\u00e9 \u20ac \ud83d\ude00\r\n"
    val text = s"COPY t FROM STDIN;\r\n$body\\.\r\nSELECT 2;\n"
    everyCut(text, maxChunk = 16) { pieces =>
      assertEquals(data(pieces), body)
      assertEquals(rows(pieces), 4)
      assertEquals(ends(pieces), List(true))
      assert(
        pieces.collect { case SqlPiece.CopyData(b, _, _) => b }.forall(_.size <= 16),
        shown(pieces)
      )
      assertEquals(
        pieces.collect { case s: SqlPiece.Statement => (s.sql, s.at.line) },
        List(("COPY t FROM STDIN", 1L), ("SELECT 2", 7L))
      )
      assertEquals(pieces.last.end.bytes, text.getBytes(UTF_8).length.toLong - 1) // through the `;`
    }
  }

  test("lines that are not terminators: \\.x, \\.\\r without \\n, \\ alone, at every cut") {
    val body = "\\.x\n\\.\rmore\n\\\n\\\\.\n"
    everyCut(s"COPY t FROM STDIN;\n$body\\.\n", maxChunk = 1024) { pieces =>
      assertEquals(data(pieces), body)
      assertEquals(rows(pieces), 4)
      assertEquals(ends(pieces), List(true))
    }
  }

  test("a body without its terminator ends at the end of the file, at every cut") {
    for
      _ <- everyCut("COPY t FROM STDIN;\na\tb\nc\td", maxChunk = 1024) { pieces =>
        assertEquals(data(pieces), "a\tb\nc\td")
        assertEquals(rows(pieces), 1)
        assertEquals(ends(pieces), List(false))
      }
      _ <- everyCut("COPY t FROM STDIN;\na\n\\", maxChunk = 1024) { pieces =>
        assertEquals(data(pieces), "a\n\\")
        assertEquals(ends(pieces), List(false))
      }
      _ <- everyCut("COPY t FROM STDIN;\na\n\\.", maxChunk = 1024) { pieces =>
        assertEquals(data(pieces), "a\n")
        assertEquals(ends(pieces), List(true))
      }
    yield ()
  }

  test("lines longer than a chunk, and chunks that fill exactly, at every cut") {
    val body = "x" * 40 + "\n" + "abcdefghijklmno\n" + "y" * 15 + "\n" + "z\n"
    everyCut(s"COPY t FROM STDIN;\n$body\\.\n", maxChunk = 16) { pieces =>
      val chunks = pieces.collect { case SqlPiece.CopyData(b, r, _) => (b.size, r) }
      assertEquals(data(pieces), body)
      assertEquals(chunks, List((16, 0), (16, 0), (9, 1), (16, 1), (16, 1), (2, 1)))
    }
  }

  test("invalid UTF-8 in a body names its line, wherever the block is cut") {
    val bytes = "COPY t FROM STDIN;\nok\n\u00e9".getBytes(UTF_8).dropRight(1) ++
      "x\nmore\n".getBytes(UTF_8)
    (1 until bytes.length).toList.traverse_ { cut =>
      split(bytes, List(cut), maxChunk = 1024).attempt.map {
        case Left(e: SplitError) =>
          assert(e.getMessage.startsWith("f.sql:3: invalid UTF-8 (byte 0x78)"), e.getMessage)
        case other => fail(s"cut at $cut: expected a SplitError, got $other")
      }
    }
  }
