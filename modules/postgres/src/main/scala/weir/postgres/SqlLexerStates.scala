package weir.postgres

/** The states of [[SqlLexer]]'s machine (plain ints: it steps once per byte of the file) and the
  * byte classes it tests.
  */
private[postgres] object SqlLexerStates:
  // States outside COPY bodies.
  val Normal = 0
  val Dash = 1
  val Slash = 2
  val LineComment = 3
  val Block = 4
  val BlockStar = 5
  val BlockSlash = 6
  val SQuote = 7
  val SQuoteEnd = 8
  val EString = 9
  val EStringBackslash = 10
  val EStringEnd = 11
  val DQuote = 12
  val DQuoteEnd = 13
  val DollarOpen = 14
  val Dollar = 15
  val DollarClose = 16
  val Meta = 17
  val AfterCopy = 19
  // States inside a COPY body (all >= CopyBody).
  val CopyBody = 20
  val CopyBackslash = 21
  val CopyDot = 22
  val CopyDotCr = 23

  val Backslash = Array[Byte]('\\')
  val BackslashDot = Array[Byte]('\\', '.')
  val BackslashDotCr = Array[Byte]('\\', '.', '\r')

  def isSpace(b: Int): Boolean =
    b == ' ' || b == '\n' || b == '\t' || b == '\r' || b == '\f'
  def isDigit(b: Int): Boolean = b >= '0' && b <= '9'
  def isIdentStart(b: Int): Boolean =
    (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') || b == '_' || b >= 0x80
  def isIdentPart(b: Int): Boolean = isIdentStart(b) || isDigit(b) || b == '$'
