package weir.postgres

/** The value of a psql `\set NAME VALUE...` line (or the text of an `\echo` line), read as psql
  * reads a meta-command's arguments: words separated by white space and joined without it (by one
  * space for `\echo`); `'...'` quotes a word (`''` for a quote, and `\n`, `\t`, `\\`... escapes);
  * `"..."` is kept with its quotes; `:NAME`, `:'NAME'` and `:"NAME"` are interpolated
  * ([[PsqlVariables.interpolate]]'s rules; a variable not set is left as written), and `:{?NAME}`
  * is `TRUE` or `FALSE` as NAME is set or not. A word in back quotes (a shell command's output) is
  * refused.
  */
private[postgres] object PsqlVariableLine:

  /** The value `text` (the line after the variable's name) sets; `Left`: why it is refused. */
  def value(
      text: String,
      vars: Map[String, String],
      separator: String = ""
  ): Either[String, String] =
    val out = new StringBuilder
    val n = text.length
    var i = 0
    var error: Option[String] = None
    while error.isEmpty && i < n do
      val c = text.charAt(i)
      val test = if c == ':' then PsqlVariables.setTest(text, i) else None
      if c == ' ' || c == '\t' || c == '\r' || c == '\f' then
        while i < n && " \t\r\f".indexOf(text.charAt(i)) >= 0 do i += 1
        if i < n && out.nonEmpty then out.append(separator)
      else if c == '`' then
        error = Some(
          "a value in back quotes (a shell command's output): weir runs no shell commands"
        )
      else if c == '\'' then
        single(text, i + 1, out) match
          case Some(end) => i = end
          case None      => error = Some("an unterminated quoted string ('...') in the value")
      else if c == '"' then
        val end = text.indexOf('"', i + 1)
        if end < 0 then error = Some("an unterminated quoted identifier (\"...\") in the value")
        else
          out.append(text.substring(i, end + 1)); i = end + 1
      else if test.isDefined then
        test.foreach { (name, end) =>
          out.append(PsqlVariables.isSet(name, vars)); i = end
        }
      else if c == ':' then
        val rest = text.substring(i)
        val word = rest.takeWhile(ch => !ch.isWhitespace)
        val one = PsqlVariables.interpolate(word, vars)
        if one != word then
          out.append(one); i += word.length
        else
          out.append(c); i += 1
      else
        out.append(c); i += 1
    error.toLeft(out.toString)

  /** `value` as a quoted word that [[value]] reads back as `value`. */
  def quoted(value: String): String =
    val out = new StringBuilder("'")
    value.foreach {
      case '\'' => out.append("''")
      case '\\' => out.append("\\\\")
      case '\n' => out.append("\\n")
      case '\r' => out.append("\\r")
      case '\t' => out.append("\\t")
      case c    => out.append(c)
    }
    out.append('\'').toString

  // A '...' word from `from` (after its quote) into `out`; where it ends, or None if it does not.
  private def single(text: String, from: Int, out: StringBuilder): Option[Int] =
    var i = from
    var end = -1
    while end < 0 && i < text.length do
      text.charAt(i) match
        case '\'' if i + 1 < text.length && text.charAt(i + 1) == '\'' =>
          out.append('\''); i += 2
        case '\'' => end = i + 1
        case '\\' if i + 1 < text.length =>
          out.append(text.charAt(i + 1) match
            case 'n'   => '\n'
            case 't'   => '\t'
            case 'r'   => '\r'
            case 'b'   => '\b'
            case 'f'   => '\f'
            case other => other
          )
          i += 2
        case ch =>
          out.append(ch); i += 1
    Option.when(end >= 0)(end)
