package weir.postgres

import fs2.{Chunk, Pipe, RaiseThrowable, Stream}
import java.io.ByteArrayOutputStream
import java.nio.charset.StandardCharsets.UTF_8
import java.util.Locale

/** Flyway's placeholders replaced in a file's bytes, before they are split into statements: every
  * `${name}` becomes its value, in statements, comments, strings and COPY bodies alike, as Flyway's
  * own reader replaces them (checked against Flyway 13 in `PlaceholderSuite`).
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

  /** `bytes` with the placeholders of `values` (names in lower case) replaced; `file` names the
    * file in errors.
    */
  def pipe[F[_]: RaiseThrowable](file: String, values: Map[String, String]): Pipe[F, Byte, Byte] =
    bytes =>
      Stream.suspend {
        val scanner = new Scanner(file, values.map((k, v) => k -> v.getBytes(UTF_8)))
        bytes.chunks.flatMap(c => emit(scanner.feed(c))) ++ Stream.suspend(emit(scanner.finish()))
      }

  private def emit[F[_]: RaiseThrowable](
      result: Either[SplitError, Chunk[Byte]]
  ): Stream[F, Byte] = result.fold(Stream.raiseError[F](_), Stream.chunk)

  /** The lower-case key a name is looked up by. */
  def key(name: String): String = name.toLowerCase(Locale.ROOT)

  /** The scan's state between blocks: where it is in the file, a `$` that ended the last block, a
    * name being read.
    */
  private final class Scanner(file: String, values: Map[String, Array[Byte]]):
    private var line = 1L
    private var column = 1 // of the next byte, in characters
    private var dollarEnded = false // the last block ended with a `$` not yet passed on
    private var dollarLine = 0L
    private var dollarColumn = 0
    private var name: ByteArrayOutputStream | Null = null // between `${` and `}`
    private var nameAt: SqlPosition = SqlPosition(file, 0, 0)

    // One byte read: the position moves past it (columns count characters, not UTF-8's bytes).
    private def step(b: Byte): Unit =
      if b == '\n' then
        line += 1
        column = 1
      else if (b & 0xc0) != 0x80 then column += 1

    def feed(chunk: Chunk[Byte]): Either[SplitError, Chunk[Byte]] =
      val slice = chunk.toArraySlice
      val a = slice.values
      val end = slice.offset + slice.length
      var out: Chunk[Byte] = Chunk.empty
      var from = slice.offset // the first byte not yet passed on
      var i = slice.offset
      var error: SplitError | Null = null
      def keep(until: Int): Unit =
        if until > from then
          out =
            if out.isEmpty then Chunk.array(a, from, until - from)
            else out ++ Chunk.array(a, from, until - from)
      if dollarEnded && i < end then
        dollarEnded = false
        if a(i) == '{' then
          open(dollarLine, dollarColumn)
          step(a(i))
          i += 1
          from = i
        else
          out = Chunk.singleton('$'.toByte)
          step(a(i))
          i += 1
      while i < end && error == null do
        val b = a(i)
        if name != null then
          step(b)
          i += 1
          if b == '}' then
            close() match
              case Left(e) => error = e
              case Right(value) =>
                if value.nonEmpty then out = out ++ Chunk.array(value)
                from = i
          else
            name.nn.write(b)
            if name.nn.size > MaxName then error = unclosed
        else if b == '$' then
          if i + 1 == end then
            keep(i)
            dollarEnded = true
            dollarLine = line
            dollarColumn = column
            step(b)
            i += 1
            from = i
          else if a(i + 1) == '{' then
            keep(i)
            open(line, column)
            step(b)
            step(a(i + 1))
            i += 2
            from = i
          else
            step(b)
            step(a(i + 1))
            i += 2
        else
          step(b)
          i += 1
      if error != null then Left(error.nn)
      else
        if name == null then keep(end)
        Right(out)

    /** What is left at the end of the file: a `$` held back, or a name never closed. */
    def finish(): Either[SplitError, Chunk[Byte]] =
      if name != null then Left(unclosed)
      else if dollarEnded then Right(Chunk.singleton('$'.toByte))
      else Right(Chunk.empty)

    private def open(l: Long, c: Int): Unit =
      name = new ByteArrayOutputStream()
      nameAt = SqlPosition(file, l, c)

    private def close(): Either[SplitError, Array[Byte]] =
      val text = new String(name.nn.toByteArray, UTF_8)
      name = null
      values.get(key(text)).toRight(SplitError.UnknownPlaceholder(nameAt, text))

    private def unclosed: SplitError =
      val start = new String(name.nn.toByteArray, UTF_8).linesIterator.nextOption().getOrElse("")
      SplitError.Unterminated(nameAt, s"placeholder $${${start.take(40)}... (no '}' after it)")
