package weir.postgres

import cats.effect.SyncIO
import fs2.{Chunk, Stream}
import java.nio.charset.StandardCharsets.UTF_8
import munit.ScalaCheckSuite
import org.scalacheck.{Gen, Prop}
import weir.Capacity

/** Any list of generated statements (with quotes, dollar quotes, comments, parentheses and COPY
  * bodies), rendered with random whitespace and comments and cut into random blocks down to one
  * byte, splits back into exactly those statements, at the right lines and columns, with the same
  * COPY bodies.
  */
class SqlSplitterPropertySuite extends ScalaCheckSuite:

  private def capacity(n: Int): Capacity = Capacity.from(n).fold(e => fail(e.getMessage), identity)

  override def scalaCheckTestParameters =
    super.scalaCheckTestParameters.withMinSuccessfulTests(500).withMaxSize(30)

  /** What the splitter should give back, with COPY data joined. */
  private enum Event:
    case Stmt(sql: String, line: Long, column: Int, copy: Boolean)
    case Body(text: String)
    case End(terminated: Boolean)

  private def piece(parts: List[String]): Gen[String] =
    Gen.listOf(Gen.oneOf(parts)).map(_.mkString)

  private val word = Gen.oneOf("SELECT", "x", "a$b", "t1", "insert", "E", "e", "é", "42", "3.5")
  private val punct = Gen.oneOf("()", ",", "+", "-", "*", "/", "=", "::", "<>", "||", "$1")
  private val single =
    piece(List("a", ";", "''", "\\", "\"", "$$", "--", "/*", "\n", "é")).map(c => s"'$c'")
  private val escaped =
    for
      e <- Gen.oneOf("E", "e")
      c <- piece(List("a", ";", "\\'", "\\\\", "''", "\"", "\n", "$$"))
    yield s"$e'$c'"
  private val ident = piece(List("a", ";", "\"\"", "'", " ")).map(c => s"\"$c\"")
  private val dollar =
    for
      tag <- Gen.oneOf("", "a", "fn", "x_1", "é")
      body <- piece(List("x", ";", "'", "\"", "$", "$a$", "$other$", "--", "/*", "\n", "$1"))
      if (body + "$" + tag + "$").indexOf("$" + tag + "$") == body.length
    yield s"$$$tag$$$body$$$tag$$"
  // A `;` inside parentheses does not end a statement (psql's rule): generated ones are balanced.
  private val parenthesized =
    Gen.zip(Gen.oneOf(word, single, dollar), Gen.oneOf("", ";", " ; ")).map((a, s) => s"($a$s)")
  private val atom = Gen.frequency(
    4 -> word,
    1 -> parenthesized,
    2 -> punct,
    2 -> single,
    1 -> escaped,
    1 -> ident,
    2 -> dollar
  )
  private val innerSeparator =
    Gen.oneOf(" ", "\n", "\t", "\r\n", "  ", " -- c;x'\n", " /* ; /* ' */ */ ", "\n  ")
  private val outerSeparator =
    Gen.oneOf("\n", " ", "\r\n", "-- top; 'comment\n", "/* top; */\n", "\n\n", ";", "\t")

  private val plainStatement: Gen[String] =
    for
      first <- Gen.oneOf("SELECT", "CREATE", "insert", "DO")
      atoms <- Gen.listOf(Gen.zip(innerSeparator, atom))
    yield first + atoms.map((s, a) => s + a).mkString

  private val bodyLine: Gen[String] =
    for
      text <- piece(List("a", ";", "'", "\"", "$$", "\t", "\\N", "é", "\\.x", "--", "/*"))
      if text != "\\."
      end <- Gen.oneOf("\n", "\r\n")
    yield text + end

  /** One statement as (its text, what follows it up to the next statement, its COPY body). */
  private val statement: Gen[(String, String, Option[String])] =
    Gen.frequency(
      5 -> plainStatement.flatMap(s => Gen.oneOf(";", " ;", "\n;").map(end => (s, end, None))),
      1 -> (for
        opts <- Gen.oneOf("", " WITH (FORMAT text)", " (FORMAT csv)")
        lines <- Gen.listOf(bodyLine)
        terminator <- Gen.oneOf("\\.\n", "\\.\r\n")
      yield (s"COPY t (a, \"from\") FROM stdin$opts", ";  \n", Some(lines.mkString + terminator)))
    )

  private val file: Gen[(String, List[Event])] =
    for
      statements <- Gen.listOf(Gen.zip(outerSeparator, statement))
      last <- outerSeparator
    yield
      val text = new StringBuilder
      val events = List.newBuilder[Event]
      for (separator, (sql, end, body)) <- statements do
        text ++= separator
        val index = text.length
        val line = 1L + text.count(_ == '\n')
        val column = index - (text.lastIndexOf("\n", index - 1) + 1) + 1
        events += Event.Stmt(sql, line, column, body.isDefined)
        text ++= sql ++= end
        body.foreach { b =>
          text ++= b
          val data = b.stripSuffix("\\.\n").stripSuffix("\\.\r\n")
          if data.nonEmpty then events += Event.Body(data)
          events += Event.End(terminated = true)
        }
      text ++= last
      (text.toString, events.result())

  /** Block sizes from 1 byte up, mostly small. */
  private val cuts: Gen[List[Int]] =
    Gen.nonEmptyListOf(Gen.frequency(3 -> Gen.choose(1, 4), 1 -> Gen.choose(5, 300)))

  private def run(bytes: Array[Byte], blocks: List[Int], maxChunk: Int): List[SqlPiece] =
    val sizes = LazyList.continually(blocks).flatten
    val chunks = Iterator
      .unfold((0, sizes)) { (at, next) =>
        if at >= bytes.length then None
        else
          val n = math.min(math.max(1, next.head), bytes.length - at)
          Some((Chunk.array(bytes, at, n), (at + n, next.tail)))
      }
      .toList
    Stream
      .emits(chunks)
      .flatMap(Stream.chunk)
      .covary[SyncIO]
      .through(SqlSplitter.pipe[SyncIO]("gen.sql", capacity(maxChunk)))
      .compile
      .toList
      .unsafeRunSync()

  /** The bytes read through [[FileBlocks]] (one array that every read overwrites), each read
    * returning at most the next of `blocks` bytes, then split.
    */
  private def runFromBlocks(bytes: Array[Byte], blocks: List[Int], maxChunk: Int): List[SqlPiece] =
    val sizes = Iterator.continually(blocks).flatten
    val in = new java.io.ByteArrayInputStream(bytes):
      override def read(b: Array[Byte], off: Int, len: Int): Int =
        super.read(b, off, math.min(len, math.max(1, sizes.next())))
    FileBlocks[SyncIO](in, 300)
      .through(SqlSplitter.pipe[SyncIO]("gen.sql", capacity(maxChunk)))
      .compile
      .toList
      .unsafeRunSync()

  /** The pieces as events, each COPY body's chunks joined as bytes (a chunk may end inside a
    * character when one line is longer than a chunk).
    */
  private def events(pieces: List[SqlPiece]): List[Event] =
    val (done, body) = pieces.foldLeft((List.empty[Event], Array.emptyByteArray)) {
      case ((acc, body), piece) =>
        piece match
          case SqlPiece.Statement(sql, at, _, copy, _, _, _) =>
            (Event.Stmt(sql, at.line, at.column, copy) :: acc, body)
          case SqlPiece.CopyData(bytes, _, _) => (acc, body ++ bytes.toArray)
          case SqlPiece.CopyEnd(_, _, terminated) =>
            val data = if body.isEmpty then Nil else List(Event.Body(new String(body, UTF_8)))
            (Event.End(terminated) :: data ::: acc, Array.emptyByteArray)
          case SqlPiece.Include(path, _, _, _)    => fail(s"no include is generated: \\i $path")
          case SqlPiece.ClientCopy(_, path, _, _) => fail(s"no \\copy is generated: $path")
          case SqlPiece.Variable(name, _, _, _)   => fail(s"no \\set is generated: $name")
          case SqlPiece.Echo(text, _, _)          => fail(s"no \\echo is generated: $text")
          case SqlPiece.Conditional(c, _, _, _)   => fail(s"no $c is generated")
          case SqlPiece.Connect(db, _, _)         => fail(s"no \\connect is generated: $db")
          case SqlPiece.Results(at, _)            => fail(s"no results are read: ${at.show}")
          case SqlPiece.Quit(at, _)               => fail(s"no \\q is generated: ${at.show}")
          case SqlPiece.Line(_, at, _)            => fail(s"no lines are asked for: ${at.show}")
    }
    assert(body.isEmpty)
    done.reverse

  property("generated files split back into their statements, wherever the blocks are cut") {
    Prop.forAllNoShrink(file, Gen.choose(4, 200), cuts) {
      case ((text, expected), maxChunk, blocks) =>
        val bytes = text.getBytes(UTF_8)
        val pieces = run(bytes, blocks, maxChunk)
        val data = pieces.collect { case d: SqlPiece.CopyData => d.bytes }
        assertEquals(events(pieces), expected, s"file: ${text.take(2000)}")
        assert(data.forall(_.size <= maxChunk))
        // Chunks end at line ends unless one line filled a whole chunk.
        assert(data.forall(c => c.last.contains('\n'.toByte) || c.size == maxChunk))
        pieces.lastOption.foreach(p => assert(p.end.bytes <= bytes.length))
        Prop.passed
    }
  }

  property("read through one reused block array, with or without a byte order mark, the same") {
    Prop.forAllNoShrink(file, Gen.choose(4, 200), cuts, Gen.oneOf(true, false)) {
      case ((text, expected), maxChunk, blocks, marked) =>
        val bom =
          if marked then Array(0xef.toByte, 0xbb.toByte, 0xbf.toByte) else Array.emptyByteArray
        val pieces = runFromBlocks(bom ++ text.getBytes(UTF_8), blocks, maxChunk)
        assertEquals(events(pieces), expected, s"file: ${text.take(2000)}")
        Prop.passed
    }
  }
