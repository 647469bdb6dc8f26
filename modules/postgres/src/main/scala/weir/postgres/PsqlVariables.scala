package weir.postgres

import cats.effect.{Ref, Sync}
import fs2.{Chunk, Pipe, Stream}

/** psql's variables in the files [[SqlApplier]] applies: set by `-v NAME=VALUE`
  * ([[ApplySettings.withVariables]]) and by `\set NAME VALUE` lines ([[SqlPiece.Variable]]),
  * removed by `\unset NAME`, and interpolated into the statements that follow as psql does: `:NAME`
  * by the value as it is, `:'NAME'` as a quoted literal, `:"NAME"` as a quoted identifier; never
  * inside quotes, dollar quotes or comments, never in `::` (a cast); a variable that is not set is
  * left as written. Variables hold from where they are set to the end of the apply, across files,
  * as in one psql session.
  *
  * One difference from psql: a value is inserted as text, not read again as SQL, so a `;` in a
  * value does not end a statement there, and a `:NAME` in a value is not replaced. psql's variables
  * that change how it applies (`AUTOCOMMIT`, `ON_ERROR_ROLLBACK`, `SINGLELINE`, `SINGLESTEP`,
  * `ON_ERROR_STOP` off) are refused ([[refused]]); the rest of psql's own (`ECHO`, `QUIET`,
  * `VERBOSITY`...) are plain variables here.
  */
private[postgres] object PsqlVariables:

  /** Whether `name` is a psql variable name: letters, digits and `_` (non-ASCII letters too). */
  def validName(name: String): Boolean =
    name.nonEmpty && name.forall(c => c.isLetterOrDigit || c == '_' || c >= 0x80)

  /** Why setting `name` to `value` is refused (`None`: it is not), in words that say what to do. */
  def refused(name: String, value: String): Option[String] = name match
    case "ON_ERROR_STOP" if !isTrue(value) =>
      Some(
        "weir always stops at the first error (ON_ERROR_STOP on); --no-transaction keeps what ran before it"
      )
    case "AUTOCOMMIT" | "ON_ERROR_ROLLBACK" | "SINGLELINE" | "SINGLESTEP" =>
      Some(
        s"psql's $name changes how psql applies a file, which weir does not follow: weir applies each file in one transaction (--no-transaction: each statement on its own)"
      )
    case _ => None

  // psql's ParseVariableBool: a prefix of "true" or "yes", "on" or "1", in any case.
  private[postgres] def isTrue(value: String): Boolean =
    val v = value.toLowerCase(java.util.Locale.ROOT)
    v.nonEmpty && ("true".startsWith(v) || "yes".startsWith(v)) || v == "on" || v == "1"

  /** The stage after [[SqlIncludes.expand]]: applies and drops the [[SqlPiece.Variable]] pieces,
    * reads the [[SqlPiece.Echo]] lines' text and interpolates the statements, with the apply's
    * variables in `vars`. A chunk without a variable piece, when none is set (nearly every chunk),
    * passes as it is.
    */
  def pipe[F[_]](vars: Ref[F, Map[String, String]])(using F: Sync[F]): Pipe[F, SqlPiece, SqlPiece] =
    _.chunks.flatMap { chunk =>
      Stream.eval(vars.get).flatMap { before =>
        if before.isEmpty && !chunk
            .exists(p => p.isInstanceOf[SqlPiece.Variable] || p.isInstanceOf[SqlPiece.Echo])
        then Stream.chunk(chunk)
        else
          Stream.eval(F.delay(interpolated(chunk, before))).flatMap {
            case Right((pieces, after)) => Stream.exec(vars.set(after)) ++ Stream.chunk(pieces)
            case Left((pieces, error))  => Stream.chunk(pieces) ++ Stream.raiseError[F](error)
          }
      }
    }

  private def interpolated(
      chunk: Chunk[SqlPiece],
      start: Map[String, String]
  ): Either[(Chunk[SqlPiece], SplitError), (Chunk[SqlPiece], Map[String, String])] =
    val out = Vector.newBuilder[SqlPiece]
    var vars = start
    val error = chunk.iterator.collectFirst(Function.unlift {
      case SqlPiece.Variable(name, None, _, _) => vars -= name; None
      case SqlPiece.Variable(name, Some(words), at, _) =>
        PsqlVariableLine.value(words, vars) match
          case Left(reason) => Some(SplitError.Unsupported(at, reason))
          case Right(value) =>
            refused(name, value) match
              case Some(reason) => Some(SplitError.Unsupported(at, s"\\set $name: $reason"))
              case None         => vars += name -> value; None
      case e: SqlPiece.Echo =>
        PsqlVariableLine.value(e.text, vars, separator = " ") match
          case Left(reason) => Some(SplitError.Unsupported(e.at, reason))
          case Right(text)  => out += e.copy(text = text); None
      case s: SqlPiece.Statement if vars.nonEmpty && !s.sql.contains(':') => out += s; None
      case s: SqlPiece.Statement if vars.nonEmpty =>
        out += s.copy(sql = interpolate(s.sql, vars)); None
      case other => out += other; None
    })
    val pieces = Chunk.from(out.result())
    error.fold(Right((pieces, vars)))(e => Left((pieces, e)))

  /** `sql` with the variables in `vars` interpolated (see [[PsqlVariables]]). */
  def interpolate(sql: String, vars: Map[String, String]): String =
    val out = new java.lang.StringBuilder(sql.length + 16)
    val n = sql.length
    var i = 0
    def copyTo(end: Int): Unit =
      val stop = math.min(end, n)
      out.append(sql, i, stop); i = stop
    def closing(quote: Char, from: Int, backslash: Boolean): Int =
      var j = from
      var end = -1
      while end < 0 && j < n do
        val c = sql.charAt(j)
        if backslash && c == '\\' then j += 2
        else if c == quote then
          if j + 1 < n && sql.charAt(j + 1) == quote then j += 2 else end = j + 1
        else j += 1
      if end < 0 then n else end
    while i < n do
      val c = sql.charAt(i)
      val prev = if i > 0 then sql.charAt(i - 1) else ' '
      if c == '-' && sql.startsWith("--", i) then
        copyTo(sql.indexOf('\n', i) match
          case -1 => n
          case e  => e
        )
      else if c == '/' && sql.startsWith("/*", i) then copyTo(commentEnd(sql, i))
      else if c == '\'' then
        val e = (prev == 'E' || prev == 'e') && (i < 2 || !identPart(sql.charAt(i - 2)))
        copyTo(closing('\'', i + 1, backslash = e))
      else if c == '"' then copyTo(closing('"', i + 1, backslash = false))
      else if c == '$' && !identPart(prev) then copyTo(dollarEnd(sql, i))
      else if c == ':' && sql.startsWith("::", i) then copyTo(i + 2)
      else if c == ':' then
        reference(sql, i + 1) match
          case Some((name, quote, end)) if vars.contains(name) =>
            out.append(quoted(vars(name), quote)); i = end
          case _ => copyTo(i + 1)
      else copyTo(i + 1)
    out.toString

  /** The variable referred to after a `:` at `from`: its name, its quote (`'`, `"` or none) and
    * where the reference ends.
    */
  private def reference(sql: String, from: Int): Option[(String, Option[Char], Int)] =
    def name(at: Int): Int =
      var j = at
      while j < sql.length && nameChar(sql.charAt(j)) do j += 1
      j
    if from >= sql.length then None
    else
      sql.charAt(from) match
        case q @ ('\'' | '"') =>
          val end = name(from + 1)
          Option.when(end > from + 1 && end < sql.length && sql.charAt(end) == q)(
            (sql.substring(from + 1, end), Some(q), end + 1)
          )
        case _ =>
          val end = name(from)
          Option.when(end > from)((sql.substring(from, end), None, end))

  /** `value` as psql interpolates it: as it is, a literal (`E'...'` when it holds a backslash) or
    * an identifier.
    */
  def quoted(value: String, quote: Option[Char]): String = quote match
    case None      => value
    case Some('"') => "\"" + value.replace("\"", "\"\"") + "\""
    case Some(_) =>
      val body = value.replace("'", "''")
      if value.contains('\\') then " E'" + body.replace("\\", "\\\\") + "'" else "'" + body + "'"

  private def nameChar(c: Char): Boolean = c.isLetterOrDigit || c == '_' || c >= 0x80
  private def identPart(c: Char): Boolean = nameChar(c) || c == '$'

  private def commentEnd(sql: String, from: Int): Int =
    var depth = 1
    var j = from + 2
    while j < sql.length && depth > 0 do
      if sql.startsWith("/*", j) then
        depth += 1; j += 2
      else if sql.startsWith("*/", j) then
        depth -= 1; j += 2
      else j += 1
    j

  // `$tag$ ... $tag$` from `from`; a `$` that opens no dollar quote (`$1`) is one character.
  private def dollarEnd(sql: String, from: Int): Int =
    val close = sql.indexOf('$', from + 1)
    val tag = if close > 0 then sql.substring(from, close + 1) else ""
    val valid = close > 0 && tag.drop(1).dropRight(1).forall(c => nameChar(c)) &&
      !tag.lift(1).exists(_.isDigit)
    if !valid then from + 1
    else
      sql.indexOf(tag, close + 1) match
        case -1  => sql.length
        case end => end + tag.length
