package weir.postgres

import cats.effect.IO
import cats.syntax.all.*
import fs2.{Chunk, Stream}
import java.nio.charset.StandardCharsets.UTF_8
import munit.CatsEffectSuite
import weir.Capacity

/** [[LineEcho]] wherever the file's blocks are cut (psql's `-a`): the lines read come before the
  * pieces that end on them, COPY bodies and empty lines are not said, and without the lines the
  * pieces are those of a split that asked for none.
  */
class LineEchoSuite extends CatsEffectSuite:

  private val small = Capacity.from(16).fold(e => fail(e.getMessage), identity)

  // The pieces of `bytes` read in two blocks cut at `cut`.
  private def split(bytes: Array[Byte], cut: Int, lines: Boolean): IO[List[SqlPiece]] =
    Stream
      .emits(List(bytes.take(cut), bytes.drop(cut)).filter(_.nonEmpty).map(Chunk.array(_)))
      .flatMap(Stream.chunk)
      .covary[IO]
      .through(SqlSplitter.pipe[IO]("f.sql", small, lines))
      .compile
      .toList

  // A line as said, or a statement, COPY chunk or end as its text.
  private def shown(p: SqlPiece): String = p match
    case l: SqlPiece.Line      => s"line ${l.text} @${l.at.line}"
    case s: SqlPiece.Statement => s"stmt ${s.sql}"
    case d: SqlPiece.CopyData  => s"data ${d.rows}"
    case e: SqlPiece.CopyEnd   => s"end ${e.terminated}"
    case other                 => other.toString

  private val text =
    "\uFEFF-- a comment\r\nSELECT 1; SELECT 2\n  AS two;\n\nCOPY t FROM stdin;\n1\tone\n" +
      "2\ttwo with a longer line than a chunk\n\\.\n\\echo done\n   \nSELECT 'é'"

  test("lines come before the pieces that end on them, at every cut; bodies and empty lines not") {
    val bytes = text.getBytes(UTF_8)
    (0 to bytes.length).toList.traverse_ { cut =>
      (split(bytes, cut, lines = true), split(bytes, cut, lines = false)).tupled.map {
        (withLines, plain) =>
          val said = withLines.map(shown)
          assertEquals(
            said.filter(_.startsWith("line")),
            List(
              "line -- a comment @1",
              "line SELECT 1; SELECT 2 @2",
              "line   AS two; @3",
              "line COPY t FROM stdin; @5",
              "line \\echo done @9",
              "line     @10",
              "line SELECT 'é' @11"
            ),
            s"cut at $cut"
          )
          assertEquals(withLines.filterNot(_.isInstanceOf[SqlPiece.Line]), plain, s"cut at $cut")
          // Each statement after the line it ends on, the body after its COPY's line.
          def after(line: String, piece: String) =
            assert(said.indexOf(line) < said.indexOf(piece), s"cut at $cut: $said")
          after("line SELECT 1; SELECT 2 @2", "stmt SELECT 1")
          after("line   AS two; @3", "stmt SELECT 2\n  AS two")
          after("line COPY t FROM stdin; @5", "stmt COPY t FROM stdin")
          after("line SELECT 'é' @11", "stmt SELECT 'é'")
          assert(said.indexOf("stmt SELECT 1") < said.indexOf("line   AS two; @3"), said)
      }
    }
  }
