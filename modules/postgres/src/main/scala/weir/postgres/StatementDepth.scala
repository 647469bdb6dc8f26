package weir.postgres

import SqlLexerStates.{isDigit, isIdentPart}

/** Whether a `;` ends the statement being read, as psql 15's lexer decides it: not inside
  * parentheses (`CREATE RULE ... DO ALSO (INSERT ...; INSERT ...)`), nor inside the `BEGIN ATOMIC
  * ... END` body of a `CREATE [OR REPLACE] FUNCTION` or `PROCEDURE` (PostgreSQL 14's SQL-standard
  * bodies, which pg_dump writes as they were created), where a `CASE` inside opens one more `END`.
  *
  * psql's rule is a heuristic and this follows it exactly: among the statement's first four words
  * it looks for `CREATE`, then `FUNCTION` or `PROCEDURE`, or `OR`, `REPLACE` and one of them; it
  * then counts `BEGIN`, `CASE` and `END` outside parentheses. Words are identifiers outside quotes
  * and comments, in any case (a quoted `"begin"` is not one; neither is the `E` of `E'...'`).
  *
  * Fed by [[SqlLexer]] with every byte of code outside quotes and comments ([[read]]), told where a
  * quote or comment begins ([[boundary]]), and [[reset]] when a statement ends. Mutable,
  * single-threaded, no allocation per byte.
  */
private[postgres] final class StatementDepth:
  private var parens = 0
  private var begins = 0
  private var words = 0
  // The initials of CREATE, OR, REPLACE, FUNCTION, PROCEDURE among the first four words, else 0.
  private val initials = new Array[Byte](4)
  // The word being read, lower-cased: its first letters (enough for the longest keyword).
  private val word = new Array[Byte](10)
  private var wordLen = 0
  private var inWord = false
  private var number = false

  /** True when a `;` here ends the statement. */
  def ends: Boolean = parens == 0 && begins == 0

  /** A byte of code outside quotes and comments (a `;` included). */
  def read(b: Int): Unit =
    if b == '$' && !inWord then () // a dollar quote or a parameter ($1) begins: no word
    else if isIdentPart(b) then
      if !inWord then
        inWord = true; wordLen = 0; number = isDigit(b)
      if wordLen < word.length then word(wordLen) = lower(b)
      wordLen += 1
    else
      boundary(b)
      if b == '(' then parens += 1
      else if b == ')' && parens > 0 then parens -= 1

  /** Code stops before `next` (a quote, a comment, a meta-command or a `$` quote begins there). */
  def boundary(next: Int): Unit =
    if inWord then
      inWord = false
      if !number && !prefix(next) then counted()

  /** A statement ended: the next one starts from nothing. */
  def reset(): Unit =
    parens = 0; begins = 0; words = 0; inWord = false
    java.util.Arrays.fill(initials, 0.toByte)

  // `E'...'`, `B'...'`, `X'...'`, `N'...'` and `U&'...'`: the letter is the literal's, not a word.
  private def prefix(next: Int): Boolean =
    wordLen == 1 && ((next == '\'' && "ebxn".indexOf(word(0).toInt) >= 0) ||
      (next == '&' && word(0) == 'u'))

  private def counted(): Unit =
    if words < initials.length && (is("create") || is("function") || is("procedure") ||
        is("or") || is("replace"))
    then initials(words) = word(0)
    words += 1
    if parens == 0 && creatingRoutine then
      if is("begin") then begins += 1
      else if is("case") then
        if begins >= 1 then begins += 1
      else if is("end") && begins > 0 then begins -= 1

  private def creatingRoutine: Boolean =
    def routine(c: Byte) = c == 'f' || c == 'p'
    initials(0) == 'c' && (routine(initials(1)) ||
      (initials(1) == 'o' && initials(2) == 'r' && routine(initials(3))))

  private def is(keyword: String): Boolean =
    wordLen == keyword.length && {
      var i = 0
      while i < wordLen && word(i) == keyword.charAt(i) do i += 1
      i == wordLen
    }

  private def lower(b: Int): Byte = (if b >= 'A' && b <= 'Z' then b + 32 else b).toByte
