package weir.postgres

import fs2.Chunk
import java.nio.charset.StandardCharsets.UTF_8
import scala.collection.mutable.ArrayBuffer

/** The byte-level state machine behind [[SqlSplitter]]: fed a file's bytes a block at a time, it
  * collects the pieces it completes until [[drain]] hands them over. Mutable and single-threaded:
  * one lexer per file, used by one pull at a time.
  *
  * It works on bytes, not characters: every byte that matters to SQL's syntax is ASCII, and UTF-8
  * never uses ASCII bytes inside a multi-byte character, so no decoding is needed until a statement
  * is complete. UTF-8 is validated on the way. Hot path: `while` loops over arrays and `Int`
  * states, no allocation per byte (the COPY file of the benchmark is 116 MB).
  */
private[postgres] final class SqlLexer(file: String, maxChunk: Int, startOffset: Long):
  import SqlLexerStates.*, SqlPiece.ResultTo

  private var state = Normal
  // Position of the next byte: 1-based line, characters already on the line, bytes read.
  private var line = 1L
  private var col = 0
  private var offset = startOffset
  // The last two bytes of code outside quotes and comments (E'' strings, dollar quotes).
  private var prev1 = ' '.toInt
  private var prev2 = ' '.toInt
  // The statement being read.
  private var stmt = new Array[Byte](256)
  private var stmtLen = 0
  private var started = false
  private var stmtLine = 0L
  private var stmtCol = 0
  // Where the open quote, comment or pending token began.
  private var openLine = 0L
  private var openCol = 0
  private var depth = 0
  private var tag = new Array[Byte](16)
  private var tagLen = 0
  private var matched = 0
  private val meta = new java.io.ByteArrayOutputStream
  private var metaLine = 0L
  private val utf8Check = new Utf8Check
  // COPY body: the chunk being filled, and where its last whole line ends.
  private var copyAt: SqlPosition = SqlPosition(file, 0, 0)
  private var copyBuf: Array[Byte] = Array.emptyByteArray
  private var copyLen = 0
  private var lastLineEnd = 0
  private var rowsToLastLineEnd = 0
  private var atLineStart = true
  // The file offset and line breaks before copyBuf(0).
  private var bufStart = 0L
  private var linesAtBufStart = 0L
  private val out = ArrayBuffer.empty[SqlPiece]
  private val nesting = new StatementDepth // psql's parentheses and BEGIN ATOMIC ... END
  private val joins = ArrayBuffer.empty[Int] // where psql's `\;` put a `;` in the statement

  /** The line the next byte is on (1-based): where reading has reached. */
  def lineNow: Long = line

  /** Drops what it holds, at once (after a fatal error: it is not used again). */
  def release(): Unit =
    stmt = Array.emptyByteArray; copyBuf = Array.emptyByteArray; out.clear()

  /** The pieces completed so far, in order; the lexer forgets them. */
  def drain(): fs2.Chunk[SqlPiece] =
    val pieces = Chunk.from(out.toVector)
    out.clear()
    pieces

  /** Reads `bytes(from until until)`. Throws [[SplitError]]. */
  def feed(bytes: Array[Byte], from: Int, until: Int): Unit =
    var i = from
    while i < until do
      if state >= CopyBody then i = copy(bytes, i, until)
      else
        val b = bytes(i) & 0xff
        step(b)
        advance(b)
        i += 1

  /** The end of the file: completes or rejects what is open. Throws [[SplitError]]. */
  def finish(): Unit =
    if utf8Check.pending then throw SplitError.InvalidUtf8(file, line, SplitError.InvalidUtf8.AtEnd)
    state match
      case Dash                                => startAt(openLine, openCol); append('-')
      case Slash                               => startAt(openLine, openCol); append('/')
      case SQuote | EString | EStringBackslash => unterminated("quoted string ('...')")
      case DQuote                              => unterminated("quoted identifier (\"...\")")
      case Dollar | DollarClose                => unterminated(s"dollar-quoted string ${tagText}")
      case Block | BlockStar | BlockSlash      => unterminated("block comment (/* ... */)")
      case Meta                                => metaDone()
      case AfterCopy                           => startBody(); endCopy(terminated = false)
      case CopyBody                            => endCopy(terminated = false)
      case CopyBackslash =>
        copyAppend(Backslash, 0, 1, rows = 0); endCopy(terminated = false)
      case CopyDot | CopyDotCr => endCopy(terminated = true)
      case _                   => ()
    if state < CopyBody && started then endStatement(offset)

  private def unterminated(what: String): Nothing =
    throw SplitError.Unterminated(SqlPosition(file, openLine, openCol), what)

  private def tagText: String = "$" + new String(tag, 0, tagLen, UTF_8) + "$"

  /** One byte outside a COPY body (`again`: re-read it after a pending token fell back). */
  private def step(b: Int): Unit =
    var again = true
    while again do
      again = false
      state match
        case Normal => normal(b)
        case Dash =>
          if b == '-' then
            keep('-'); keep('-'); state = LineComment
          else
            fallBack('-'); again = true
        case Slash =>
          if b == '*' then
            state = Block; depth = 1; keep('/'); keep(b)
          else
            fallBack('/'); again = true
        case LineComment => keep(b); if b == '\n' then state = Normal
        case Block =>
          keep(b); if b == '*' then state = BlockStar else if b == '/' then state = BlockSlash
        case BlockStar =>
          keep(b)
          if b == '/' then
            depth -= 1
            state = if depth == 0 then closed(Normal) else Block
          else if b != '*' then state = Block
        case BlockSlash =>
          keep(b)
          if b == '*' then
            depth += 1; state = Block
          else if b != '/' then state = Block
        case SQuote => append(b); if b == '\'' then state = SQuoteEnd
        case EString =>
          append(b);
          if b == '\\' then state = EStringBackslash else if b == '\'' then state = EStringEnd
        case EStringBackslash => append(b); state = EString
        case DQuote           => append(b); if b == '"' then state = DQuoteEnd
        case SQuoteEnd | EStringEnd | DQuoteEnd =>
          val quote = if state == DQuoteEnd then '"' else '\''
          if b == quote then
            append(b);
            state =
              if state == SQuoteEnd then SQuote else if state == EStringEnd then EString else DQuote
          else
            state = closed(Normal); again = true
        case DollarOpen =>
          if b == '$' then
            append(b); state = Dollar
          else if isIdentStart(b) || (tagLen > 0 && isDigit(b)) then
            addTag(b); append(b)
          else
            state = Normal; prev1 = '$'; again = true // `$1`, or a lone `$`
        case Dollar =>
          append(b);
          if b == '$' then
            matched = 0; state = DollarClose
        case DollarClose =>
          append(b)
          if matched == tagLen && b == '$' then state = closed(Normal)
          else if matched < tagLen && b == (tag(matched) & 0xff) then matched += 1
          else if b == '$' then matched = 0
          else state = Dollar
        case Meta =>
          if b == '\n' then
            metaDone(); state = Normal
          else if b == ';' && meta.size == 1 then joined() // psql's `\;`
          else PsqlMeta.keep(meta, b, SqlPosition(file, metaLine, 1))
        case AfterCopy =>
          if b == '\n' then
            bufStart = offset + 1; linesAtBufStart = line; startBody()
          else if !isSpace(b) then
            throw SplitError.Unsupported(
              SqlPosition(file, line, col + 1),
              "text after COPY ... FROM STDIN; on the same line: the COPY body starts on the next line"
            )

  private def normal(b: Int): Unit =
    nesting.read(b)
    if b == ';' then
      if !nesting.ends then
        append(b); prev2 = prev1; prev1 = b
      else if started then endStatement(offset + 1)
    else if isSpace(b) then
      keep(b); prev2 = prev1; prev1 = ' '
    else if b == '\\' then // a psql meta-command, from here to the line's end
      state = Meta; meta.reset(); meta.write('\\'); metaLine = line
    else
      b match
        case '-' | '/' =>
          openLine = line; openCol = col + 1; state = if b == '-' then Dash else Slash
        case '\'' =>
          open(); append(b)
          val e = (prev1 == 'E' || prev1 == 'e') && !isIdentPart(prev2)
          state = if e then EString else SQuote
        case '"' => open(); append(b); state = DQuote
        case '$' if !isIdentPart(prev1) =>
          open(); append(b); tagLen = 0; state = DollarOpen
        case _ =>
          if !started then startAt(line, col + 1)
          append(b)
          prev2 = prev1; prev1 = b

  /** Back to code after a quote or comment: the next token starts fresh. */
  private def closed(next: Int): Int =
    prev1 = ' '; prev2 = ' '; next

  /** A pending `-` or `/` that did not start a comment: it is code. */
  private def fallBack(c: Char): Unit =
    if !started then startAt(openLine, openCol)
    append(c); prev2 = prev1; prev1 = c; state = Normal

  private def open(): Unit =
    openLine = line; openCol = col + 1
    if !started then startAt(line, col + 1)

  private def startAt(l: Long, c: Int): Unit =
    started = true; stmtLine = l; stmtCol = c

  /** A byte of a comment or whitespace: part of the statement once it has started. */
  private def keep(b: Int): Unit = if started then append(b)

  private def append(b: Int): Unit =
    if stmtLen == stmt.length then stmt = java.util.Arrays.copyOf(stmt, stmt.length * 2)
    stmt(stmtLen) = b.toByte
    stmtLen += 1

  private def addTag(b: Int): Unit =
    if tagLen == tag.length then tag = java.util.Arrays.copyOf(tag, tag.length * 2)
    tag(tagLen) = b.toByte
    tagLen += 1

  /** psql's `\;`: a `;` in the statement that does not end it (off the per-byte path). */
  private def joined(): Unit =
    open(); joins += stmtLen; append(';'); state = Normal

  /** A meta-command's line is read ([[PsqlMeta.read]]): an include, or nothing. */
  private def metaDone(): Unit =
    val text = meta.toString(UTF_8)
    val at = SqlPosition(file, metaLine, 1)
    PsqlMeta.sending(text, at, started) match
      case Some(to) => endStatement(offset + 1, line, to)
      case None     => PsqlMeta.read(text, at, started, offset + 1).foreach(out += _)

  /** The byte's effect on the position and UTF-8 validation. */
  private def advance(b: Int): Unit =
    if b < 0x80 then
      if utf8Check.pending then throw SplitError.InvalidUtf8(file, line, b)
      if b == '\n' then
        line += 1; col = 0
      else col += 1
    else
      utf8(b)
      if (b & 0xc0) != 0x80 then col += 1
    offset += 1

  private def utf8(b: Int): Unit =
    if !utf8Check.accept(b) then throw SplitError.InvalidUtf8(file, line, b)

  /** The statement read so far is complete, `end` bytes and `lines` line breaks into the file;
    * `to`: where the `\\gset` or `\\gexec` that ended it sends its result.
    */
  private def endStatement(end: Long, lines: Long = line - 1, to: Option[ResultTo] = None): Unit =
    var len = stmtLen
    while len > 0 && isSpace(stmt(len - 1) & 0xff) do len -= 1
    val sql = new String(stmt, 0, len, UTF_8)
    val at = SqlPosition(file, stmtLine, stmtCol)
    val joined = SqlStatements.joined(stmt, joins, len) // what psql's `\;` put together
    val copyIn = SqlStatements.copyFromStdin(sql, at, to.isDefined, joined)
    out += SqlPiece.Statement(sql, at, Mark(end, lines), copyIn, None, to, joins.nonEmpty)
    if stmt.length > (1 << 16) then stmt = new Array[Byte](256) // one huge statement: let it go
    stmtLen = 0; started = false
    prev1 = ' '; prev2 = ' '
    nesting.reset(); joins.clear()
    if copyIn then
      state = AfterCopy
      copyAt = at

  // ---- COPY bodies ----
  /** Reads COPY body bytes from `i`; returns where it stopped (the end, or the byte after `\.`). */
  private def copy(bytes: Array[Byte], from: Int, until: Int): Int =
    var i = from
    while i < until && state >= CopyBody do
      val b = bytes(i) & 0xff
      state match
        case CopyBody if atLineStart && b == '\\' =>
          state = CopyBackslash; step1(b); i += 1
        case CopyBody => i = lines(bytes, i, until)
        case CopyBackslash =>
          if b == '.' then
            state = CopyDot; step1(b); i += 1
          else notTerminator(Backslash)
        case CopyDot =>
          if b == '\n' then
            step1(b); i += 1; terminator()
          else if b == '\r' then
            state = CopyDotCr; step1(b); i += 1
          else notTerminator(BackslashDot)
        case CopyDotCr =>
          if b == '\n' then
            step1(b); i += 1; terminator()
          else notTerminator(BackslashDotCr)
    i

  /** The bulk of a COPY body: whole lines from `from`, up to the end of the block or a line that
    * starts with `\` (a possible `\.`, left to [[copy]]'s states); returns where it stopped.
    *
    * Hot path (a COPY file is nearly all body): a tight loop finds the next line break and stops
    * only at a non-ASCII byte (validated as UTF-8 byte by byte); the lines found are copied into
    * the chunk in runs, one `arraycopy` for as many whole lines as fit, not one per line or byte.
    */
  private def lines(bytes: Array[Byte], from: Int, until: Int): Int =
    var run = from // the first byte not yet copied into the chunk
    var runEnd = from // the end of the last whole line after `run`
    var rows = 0 // line breaks in run until runEnd
    var j = from
    while j < until && !(atLineStart && bytes(j) == '\\') do
      if !utf8Check.pending then
        var k = j
        while k < until && { val c = bytes(k); c >= 0 && c != '\n' } do k += 1
        if k > j then atLineStart = false
        j = k
      if j < until then
        val c = bytes(j) & 0xff
        if c < 0x80 && utf8Check.pending then throw SplitError.InvalidUtf8(file, line, c)
        j += 1
        if c == '\n' then
          line += 1; atLineStart = true
          if copyLen + (j - run) <= maxChunk then rows += 1
          else
            // The line does not fit: the whole lines before it go in, then it (across a flush).
            if rows > 0 then copyAppend(bytes, run, runEnd, rows)
            copyAppend(bytes, runEnd, j, 1)
            run = j; rows = 0
          runEnd = j
        else
          utf8(c); atLineStart = false
    copyAppend(bytes, run, runEnd, rows)
    copyAppend(bytes, runEnd, j, 0)
    offset += j - from
    j

  private def step1(b: Int): Unit =
    utf8or(b); offset += 1

  /** The line began with `prefix` (held back) but is not `\.`: the prefix is data. */
  private def notTerminator(prefix: Array[Byte]): Unit =
    copyAppend(prefix, 0, prefix.length, rows = 0)
    state = CopyBody; atLineStart = false

  /** The line `\.` ended, with its line break. */
  private def terminator(): Unit =
    line += 1; endCopy(terminated = true)

  private def utf8or(b: Int): Unit =
    if b >= 0x80 then utf8(b)
    else if utf8Check.pending then throw SplitError.InvalidUtf8(file, line, b)

  /** Copies `src(from until until)` into the chunk, emitting full chunks on the way; `rows` line
    * breaks in it, the last one at its end when `rows > 0`.
    */
  private def copyAppend(src: Array[Byte], from: Int, until: Int, rows: Int): Unit =
    var i = from
    while i < until do
      if copyLen == maxChunk then flushChunk()
      val n = math.min(until - i, maxChunk - copyLen)
      System.arraycopy(src, i, copyBuf, copyLen, n)
      copyLen += n
      i += n
    if rows > 0 then
      lastLineEnd = copyLen
      rowsToLastLineEnd += rows

  private def startBody(): Unit =
    state = CopyBody; atLineStart = true
    copyBuf = new Array[Byte](maxChunk)
    copyLen = 0; lastLineEnd = 0; rowsToLastLineEnd = 0

  /** The buffer is full: emit its whole lines (all of it if one line fills it), keep the rest. */
  private def flushChunk(): Unit =
    val cut = if lastLineEnd > 0 then lastLineEnd else copyLen
    val rows = if lastLineEnd > 0 then rowsToLastLineEnd else 0
    val next = new Array[Byte](maxChunk)
    System.arraycopy(copyBuf, cut, next, 0, copyLen - cut)
    emitChunk(cut, rows)
    copyBuf = next; copyLen -= cut; lastLineEnd = 0; rowsToLastLineEnd = 0

  private def emitChunk(length: Int, rows: Int): Unit =
    bufStart += length; linesAtBufStart += rows
    out += SqlPiece.CopyData(Chunk.array(copyBuf, 0, length), rows, Mark(bufStart, linesAtBufStart))

  private def endCopy(terminated: Boolean): Unit =
    if copyLen > 0 then emitChunk(copyLen, rowsToLastLineEnd)
    out += SqlPiece.CopyEnd(copyAt, Mark(offset, line - 1), terminated)
    copyBuf = Array.emptyByteArray; copyLen = 0; lastLineEnd = 0; rowsToLastLineEnd = 0
    state = Normal
    col = 0
