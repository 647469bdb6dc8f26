package weir.postgres

/** psql's variables in the files [[SqlApplier]] applies: set by `-v NAME=VALUE`
  * ([[ApplySettings.withVariables]]) and by `\set NAME VALUE` lines ([[SqlPiece.Variable]]),
  * removed by `\unset NAME` ([[PsqlScript]] keeps them), and interpolated into the statements that
  * follow as psql does: `:NAME` by the value as it is, `:'NAME'` as a quoted literal, `:"NAME"` as
  * a quoted identifier; never inside quotes, dollar quotes or comments, never in `::` (a cast); a
  * variable that is not set is left as written. Variables hold from where they are set to the end
  * of the apply, across files, as in one psql session.
  *
  * In a statement, a value put in by `:NAME` is read again as SQL, as psql reads it: its own
  * `:OTHER` are replaced (not `:NAME` itself again), and a `;` in it ends a statement there
  * ([[PsqlExpansion]]). In a psql line's arguments (`\\set`, `\\echo`, `\\if`...) a value is put in
  * as it is, as psql does there. psql's variables that change how it applies (`AUTOCOMMIT`,
  * `ON_ERROR_ROLLBACK`, `SINGLELINE`, `SINGLESTEP`, `ON_ERROR_STOP` off) are refused ([[refused]]);
  * the rest of psql's own (`ECHO`, `QUIET`, `VERBOSITY`...) are plain variables here.
  */
private[postgres] object PsqlVariables:

  /** The variables psql sets for a connection to `target` (they win over `-v`'s, as in psql):
    * `DBNAME`, `USER`, `HOST`, `PORT`, `ENCODING` (`UTF8`: weir's client encoding) and the server's
    * `SERVER_VERSION_NAME` and `SERVER_VERSION_NUM` (`versionName`, `versionNum`).
    */
  def connection(target: PgTarget, versionName: String, versionNum: Int): Map[String, String] =
    Map(
      "DBNAME" -> target.database,
      "USER" -> target.user,
      "HOST" -> target.host,
      "PORT" -> target.port.toString,
      "ENCODING" -> "UTF8",
      "SERVER_VERSION_NAME" -> versionName,
      "SERVER_VERSION_NUM" -> versionNum.toString
    )

  /** Whether `name` is a psql variable name: letters, digits and `_` (non-ASCII letters too). */
  def validName(name: String): Boolean =
    name.nonEmpty && name.forall(c => c.isLetterOrDigit || c == '_' || c >= 0x80)

  /** Why setting `name` to `value` is refused (`None`: it is not), in words that say what to do. */
  def refused(name: String, value: String): Option[String] = name match
    case "ON_ERROR_STOP" if !isTrue(value) =>
      Some(
        "going on past failed statements is set for the whole apply, not in a file: weir apply-sql --no-transaction -v ON_ERROR_STOP=0 (ApplySettings.withStopAtError(false))"
      )
    case "AUTOCOMMIT" | "ON_ERROR_ROLLBACK" | "SINGLELINE" | "SINGLESTEP" =>
      Some(
        s"psql's $name changes how psql applies a file, which weir does not follow: weir applies each file in one transaction (--no-transaction: each statement on its own)"
      )
    case _ => None

  private def isTrue(value: String): Boolean = boolean(value).contains(true)

  /** `value` as psql's `ParseVariableBool` reads it: a prefix of `true`, `false`, `yes` or `no`, or
    * `on`, `off` (`of`), `1`, `0`, in any case; `None` for anything else.
    */
  def boolean(value: String): Option[Boolean] =
    val v = value.trim.toLowerCase(java.util.Locale.ROOT)
    if v.isEmpty then None
    else if "true".startsWith(v) || "yes".startsWith(v) || v == "on" || v == "1" then Some(true)
    else if "false".startsWith(v) || "no".startsWith(v) || v == "0" then Some(false)
    else if v.length >= 2 && "off".startsWith(v) then Some(false)
    else None

  /** `sql` with the variables in `vars` interpolated (see [[PsqlVariables]]). `expanding`: in a
    * statement, the variables whose values are being read (a value's own references are replaced
    * too, not one being read, and `:{?NAME}` is `TRUE` or `FALSE`, as psql does); `None` in a psql
    * line's arguments (values as they are).
    */
  def interpolate(
      sql: String,
      vars: Map[String, String],
      expanding: Option[Set[String]] = None
  ): String =
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
      else if c == ':' && expanding.isDefined && sql.startsWith(":{?", i) then
        setTest(sql, i).filter((name, _) => validName(name)) match
          case Some((name, end)) =>
            out.append(isSet(name, vars)); i = end
          case None => copyTo(i + 1)
      else if c == ':' then
        reference(sql, i + 1) match
          case Some((name, None, end)) if expanding.exists(_.contains(name)) => copyTo(end)
          case Some((name, None, end)) if vars.contains(name) && expanding.isDefined =>
            val value = vars(name)
            out.append(
              if value.contains(':') then interpolate(value, vars, expanding.map(_ + name))
              else value
            )
            i = end
          case Some((name, quote, end)) if vars.contains(name) =>
            out.append(quoted(vars(name), quote)); i = end
          case _ => copyTo(i + 1)
      else copyTo(i + 1)
    out.toString

  /** psql's `:{?NAME}` at `at` in `text`: NAME and where the test ends; `None` without its `}`. */
  def setTest(text: String, at: Int): Option[(String, Int)] =
    val close = text.indexOf('}', at + 3)
    Option.when(text.startsWith(":{?", at) && close > 0)((text.substring(at + 3, close), close + 1))

  /** What `:{?NAME}` becomes: `TRUE` when NAME is set, else `FALSE`. */
  def isSet(name: String, vars: Map[String, String]): String =
    if vars.contains(name) then "TRUE" else "FALSE"

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
