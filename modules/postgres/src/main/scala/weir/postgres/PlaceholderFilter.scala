package weir.postgres

import cats.effect.Sync
import fs2.{Chunk, Pipe, Stream}
import java.io.ByteArrayOutputStream
import java.nio.charset.StandardCharsets.UTF_8
import java.util.Locale

/** Flyway's placeholders replaced in a file's bytes, before they are split into statements: every
  * `${name}` becomes its value, in statements, comments, strings and COPY bodies alike, as Flyway's
  * own reader replaces them (checked against Flyway 13 in `PlaceholderFilterSuite`).
  *
  * '''Flyway's rules, kept.''' Names are matched without regard to case. A name runs from `${` to
  * the first `}`, across lines. A `$` followed by anything but `{` is passed on with the byte after
  * it, unread: so `$${x}` is kept as it is (Flyway reads two characters at a `$`). A value is not
  * scanned again. A name with no value stops the file ([[SplitError.UnknownPlaceholder]], at the
  * line and column of its `${`), as Flyway stops; so does a `${` never closed.
  *
  * '''Memory.''' Blocks with no placeholder are passed on as they are (no copy): this must run
  * between [[FileBlocks]], whose array each read overwrites, and a consumer that copies what it
  * keeps, with nothing buffering in between. A name is held until its `}` (at most
  * [[PlaceholderFilter.MaxName]] bytes).
  *
  * Line numbers in later messages are the file's as long as no value holds a line break; columns
  * after a replaced placeholder on its line are those of the replaced text (the server's).
  */
private[postgres] object PlaceholderFilter:

  /** The longest name looked for, in bytes: a `${` with no `}` this far is reported as unclosed. */
  val MaxName = 4096

  /** `bytes` with the placeholders of `values` (names in lower case) replaced; `locate` turns a
    * byte offset into the file's name, line and column (called only to report an error: it may read
    * the file again).
    */
  def pipe[F[_]: Sync](
      values: Map[String, String],
      locate: Long => F[SqlPosition]
  ): Pipe[F, Byte, Byte] =
    bytes =>
      Stream.suspend {
        val scanner = new Scanner(values.map((k, v) => k -> v.getBytes(UTF_8)))
        def emit(result: Either[Problem, Chunk[Byte]]): Stream[F, Byte] = result match
          case Right(out) => Stream.chunk(out)
          case Left(problem) =>
            Stream
              .eval(locate(problem.offset))
              .flatMap(at => Stream.raiseError[F](problem.error(at)))
        bytes.chunks.flatMap(c => emit(scanner.feed(c))) ++ Stream.suspend(emit(scanner.finish()))
      }

  /** The lower-case key a name is looked up by. */
  def key(name: String): String = name.toLowerCase(Locale.ROOT)

  /** The line and column (in characters, from 1) of byte `offset` of what `in` reads, a file from
    * its start (a leading byte order mark is not counted). Blocking: reads up to `offset`.
    */
  def position(file: String, in: java.io.InputStream, offset: Long): SqlPosition =
    val block = new Array[Byte](65536)
    var line = 1L
    var column = 1
    var at = 0L // the offset of block(0)
    var n = in.readNBytes(block, 0, block.length)
    var i =
      if n >= 3 && block(0) == 0xef.toByte && block(1) == 0xbb.toByte && block(2) == 0xbf.toByte
      then 3
      else 0
    while n > 0 && at + i < offset do
      val b = block(i)
      if b == '\n' then
        line += 1
        column = 1
      else if (b & 0xc0) != 0x80 then column += 1
      i += 1
      if i == n then
        at += n
        i = 0
        n = in.readNBytes(block, 0, block.length)
    SqlPosition(file, line, column)

  /** A placeholder that stops the file: at byte `offset` (its `${`). */
  private enum Problem(val offset: Long):
    case Unknown(at: Long, name: String) extends Problem(at)
    case Unclosed(at: Long, start: String) extends Problem(at)

    def error(position: SqlPosition): SplitError = this match
      case Unknown(_, name) => SplitError.UnknownPlaceholder(position, name)
      case Unclosed(_, start) =>
        SplitError.Unterminated(position, s"placeholder $${${start.take(40)}... (no '}' after it)")

  /** The scan's state between blocks: a `$` that ended the last block, a name being read, how many
    * bytes came before. The loops look for `$` (or, in a name, `}`) and nothing else: a block with
    * neither costs one pass of byte comparisons.
    */
  private final class Scanner(values: Map[String, Array[Byte]]):
    private var consumed = 0L // bytes of the blocks before this one
    private var dollarEnded = false // the last block ended with a `$` not yet passed on
    private var name: ByteArrayOutputStream | Null = null // between `${` and `}`
    private var nameAt = 0L

    def feed(chunk: Chunk[Byte]): Either[Problem, Chunk[Byte]] =
      val slice = chunk.toArraySlice
      val a = slice.values
      val start = slice.offset
      val end = start + slice.length
      var out: Chunk[Byte] = Chunk.empty
      var from = start // the first byte not yet passed on
      var i = start
      var problem: Problem | Null = null
      def keep(until: Int): Unit =
        if until > from then
          out =
            if out.isEmpty then Chunk.array(a, from, until - from)
            else out ++ Chunk.array(a, from, until - from)
      if dollarEnded && i < end then
        dollarEnded = false
        if a(i) == '{' then
          open(consumed - 1)
          i += 1
          from = i
        else
          out = Chunk.singleton('$'.toByte)
          i += 1 // the byte after a `$` is passed on unread, as Flyway's reader does
      while i < end && problem == null do
        if name != null then
          var j = i
          while j < end && a(j) != '}' do j += 1
          name.nn.write(a, i, j - i)
          if name.nn.size > MaxName then problem = unclosed
          else if j < end then
            close() match
              case Left(p) => problem = p
              case Right(value) =>
                if value.nonEmpty then out = out ++ Chunk.array(value)
                from = j + 1
          i = j + 1
        else
          var j = i
          while j < end && a(j) != '$' do j += 1
          if j >= end - 1 then
            if j == end - 1 then // a `$` last: what follows it is in the next block
              keep(j)
              dollarEnded = true
              from = end
            i = end
          else if a(j + 1) == '{' then
            keep(j)
            open(consumed + (j - start))
            i = j + 2
            from = i
          else i = j + 2
      consumed += slice.length
      if problem != null then Left(problem.nn)
      else
        if name == null && from < end then keep(end)
        Right(out)

    /** What is left at the end of the file: a `$` held back, or a name never closed. */
    def finish(): Either[Problem, Chunk[Byte]] =
      if name != null then Left(unclosed)
      else if dollarEnded then Right(Chunk.singleton('$'.toByte))
      else Right(Chunk.empty)

    private def open(at: Long): Unit =
      name = new ByteArrayOutputStream()
      nameAt = at

    private def close(): Either[Problem, Array[Byte]] =
      val text = new String(name.nn.toByteArray, UTF_8)
      name = null
      values.get(key(text)).toRight(Problem.Unknown(nameAt, text))

    private def unclosed: Problem =
      val text = new String(name.nn.toByteArray, UTF_8)
      Problem.Unclosed(nameAt, text.linesIterator.nextOption().getOrElse(""))
