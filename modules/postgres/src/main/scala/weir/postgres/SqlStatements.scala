package weir.postgres

import java.nio.charset.StandardCharsets.UTF_8

/** What kind of statement a complete statement's text is, as far as applying it is concerned: `COPY
  * ... FROM STDIN` (a body follows), a statement weir refuses (it could not apply the rest of the
  * file faithfully), or any other.
  */
private[postgres] object SqlStatements:

  enum Kind:
    case Plain
    case CopyFromStdin
    case Rejected(reason: String)

  /** Classifies `sql` from its first words (outside quotes and comments). Only `COPY` and `SET`
    * statements are looked into; anything else is [[Kind.Plain]] at once.
    */
  def classify(sql: String): Kind =
    keywords(sql, limit = 1) match
      case List("COPY" | "SET") => classifyWords(keywords(sql, limit = 48))
      case _                    => Kind.Plain

  /** The statements psql's `\\;` put together in `stmt(0 until len)`, each without its `;` (at
    * `joins`); none when it put none.
    */
  def joined(stmt: Array[Byte], joins: collection.Seq[Int], len: Int): List[String] =
    if joins.isEmpty then Nil
    else
      val cuts = (-1 +: joins.toList) :+ len
      cuts.zip(cuts.drop(1)).map((a, b) => new String(stmt, a + 1, b - a - 1, UTF_8))

  /** Whether `sql`, complete, at `at`, is a `COPY ... FROM STDIN` (its body follows). Throws
    * [[SplitError.Unsupported]] when it is refused: as [[classify]] says, a COPY ended by a
    * `\\gset` or `\\gexec` (`ended`), or the statements psql's `\\;` put together in it (`joined`,
    * [[joinedRefusal]]). Once per statement, allocating nothing for one without `\\;`.
    */
  def copyFromStdin(sql: String, at: SqlPosition, ended: Boolean, joined: List[String]): Boolean =
    if joined.nonEmpty then
      joinedRefusal(joined, ended).foreach(reason => throw SplitError.Unsupported(at, reason))
    classify(sql) match
      case Kind.Rejected(reason) => throw SplitError.Unsupported(at, reason)
      case Kind.CopyFromStdin if ended =>
        throw SplitError.Unsupported(at, "a COPY ... FROM STDIN ended by \\gset or \\gexec")
      case kind => kind == Kind.CopyFromStdin

  /** Why statements put together by psql's `\\;` (`parts`, each without its `;`; `ended`: a
    * `\\gset` or `\\gexec` ends them) are refused, if they are: a part that is a `COPY ... FROM
    * STDIN` or refused on its own, a transaction's control (`BEGIN`, `COMMIT`, `ROLLBACK`: a file's
    * own, which weir follows only as a statement of its own, [[OwnTransaction]]), or an end that
    * reads one result of several.
    */
  def joinedRefusal(parts: Seq[String], ended: Boolean): Option[String] =
    val written = parts.map(_.trim).filter(_.nonEmpty)
    def first(part: String) = part.takeWhile(_.isLetter).toUpperCase(java.util.Locale.ROOT)
    if ended then
      Some(
        "a \\gset or \\gexec after statements put together by \\; (one result of several): end the others with ;"
      )
    else
      written.iterator
        .map { part =>
          classify(part) match
            case Kind.CopyFromStdin =>
              Some(
                "a COPY ... FROM STDIN put together with others by \\;: end the one before it with ;"
              )
            case Kind.Rejected(reason) => Some(reason)
            case Kind.Plain if OwnTransaction.of(part) != OwnTransaction.Kind.Send =>
              Some(
                s"${first(part)} put together with other statements by \\;: write it as a statement of its own (end the one before it with ;)"
              )
            case Kind.Plain => None
        }
        .collectFirst { case Some(reason) => reason }

  private def classifyWords(words: List[String]): Kind =
    words.headOption match
      case Some("COPY") =>
        val from = words.indexOf("FROM")
        val to = words.indexOf("TO")
        if from >= 0 && words.lift(from + 1).contains("STDIN") then Kind.CopyFromStdin
        else if to >= 0 && words.lift(to + 1).contains("STDOUT") then
          Kind.Rejected(
            "COPY ... TO STDOUT is not supported: weir apply-sql applies SQL and prints no data (use psql, or COPY ... TO a server file)"
          )
        else Kind.Plain
      case Some("SET") =>
        val rest = words.drop(1).dropWhile(w => w == "SESSION" || w == "LOCAL")
        rest match
          case "STANDARD_CONFORMING_STRINGS" :: _ :: value :: _
              if Set("OFF", "FALSE", "NO", "0").contains(value) =>
            Kind.Rejected(
              "SET standard_conforming_strings = off is not supported: weir splits statements as PostgreSQL does with it on (the default since 9.1), so backslashes in '...' would be read differently"
            )
          case _ => Kind.Plain
      case _ => Kind.Plain

  /** The client encoding a `SET [SESSION|LOCAL] client_encoding TO|= X` or `SET NAMES X` statement
    * sets, when it is not UTF-8 (`UTF8`, `UTF-8`, `UNICODE`) nor `DEFAULT`; `None` for any other
    * statement. pg_dump writes one at the top of a database's dump in its encoding.
    */
  def clientEncoding(sql: String): Option[String] =
    if keywords(sql, limit = 1) != List("SET") then None
    else
      val words = keywords(sql, limit = 6).drop(1).dropWhile(w => w == "SESSION" || w == "LOCAL")
      val value = words match
        case "CLIENT_ENCODING" :: ("TO" | "=") :: v :: Nil => Some(v)
        case "NAMES" :: v :: Nil                           => Some(v)
        case _                                             => None
      value.filterNot(v => v == "DEFAULT" || utf8Names.contains(v))

  /** PostgreSQL's names of UTF-8 as a client encoding, upper-cased. */
  val utf8Names: Set[String] = Set("UTF8", "UTF-8", "UNICODE")

  /** The first `limit` bare words of `sql`, upper-cased, skipping quotes, comments and punctuation;
    * a quoted literal's content (`'off'`) counts as a word, so `SET x = 'off'` and `SET x TO off`
    * read alike.
    */
  def keywords(sql: String, limit: Int): List[String] =
    val words = List.newBuilder[String]
    var count = 0
    var i = 0
    val n = sql.length
    def word(w: String): Unit =
      words += w.toUpperCase; count += 1
    while i < n && count < limit do
      val c = sql.charAt(i)
      if c == '-' && i + 1 < n && sql.charAt(i + 1) == '-' then
        while i < n && sql.charAt(i) != '\n' do i += 1
      else if c == '/' && i + 1 < n && sql.charAt(i + 1) == '*' then
        var depth = 1
        i += 2
        while i < n && depth > 0 do
          if sql.startsWith("/*", i) then
            depth += 1; i += 2
          else if sql.startsWith("*/", i) then
            depth -= 1; i += 2
          else i += 1
      else if c == '\'' || c == '"' then
        val end = sql.indexOf(c.toInt, i + 1)
        val stop = if end < 0 then n else end
        if c == '\'' then word(sql.substring(i + 1, stop)) else word("\"")
        i = stop + 1
      else if c == '$' then
        val close = sql.indexOf('$', i + 1)
        if close > 0 && sql.substring(i + 1, close).forall(ch => ch.isLetterOrDigit || ch == '_')
        then
          val tag = sql.substring(i, close + 1)
          val end = sql.indexOf(tag, close + 1)
          i = if end < 0 then n else end + tag.length
          word("$")
        else i += 1
      else if c.isLetter || c == '_' then
        val start = i
        while i < n && (sql.charAt(i).isLetterOrDigit || sql.charAt(i) == '_' || sql.charAt(
            i
          ) == '$')
        do i += 1
        word(sql.substring(start, i))
      else if c.isDigit then
        val start = i
        while i < n && sql.charAt(i).isLetterOrDigit do i += 1
        word(sql.substring(start, i))
      else if c == '=' then
        word("="); i += 1
      else i += 1
    words.result()
