package weir.postgres

/** psql's `\copy` line read as psql reads it: `\copy TABLE [(COLUMNS)] from FILE [[WITH] (OPTIONS)]
  * [WHERE ...]` stands for `COPY TABLE [(COLUMNS)] FROM STDIN [[WITH] (OPTIONS)] [WHERE ...]` with
  * the bytes of FILE as its body. FILE is one word or in single quotes (`''` for a quote in it),
  * and `~/` stands for the home directory, as in psql; the rest of the line goes into the statement
  * as it is (a `;` ending it dropped).
  *
  * Refused, saying why: `\copy ... to` (weir writes no files), `from stdin` and `from pstdin`
  * (weir's own COPY takes its data from the file: `COPY ... FROM STDIN;` and the rows after it) and
  * `from program` (weir runs no programs).
  */
private[postgres] object PsqlCopy:

  private val Usage = "\\copy TABLE [(COLUMNS)] from 'FILE' [WITH (OPTIONS)]"

  /** The statement and the file's path that the arguments `args` of a `\copy` line (the text after
    * `\copy`) name; Left: why weir does not follow it.
    */
  def read(args: String): Either[String, (String, String)] =
    direction(args) match
      case None => Left(s"\\copy without from: write $Usage")
      case Some((target, word, after)) =>
        if target.isEmpty then Left(s"\\copy without a table: write $Usage")
        else if word.equalsIgnoreCase("to") then
          Left(
            "\\copy ... to writes a file, and weir apply-sql only applies SQL to the server: run that line with psql"
          )
        else
          source(after.trim).flatMap { (path, rest) =>
            val options = rest.trim.stripSuffix(";").trim
            val sql = s"COPY $target FROM STDIN" + (if options.isEmpty then "" else s" $options")
            Right((sql, path))
          }

  // The text before the first `from` or `to` outside quotes and parentheses, that word, and the
  // text after it.
  private def direction(args: String): Option[(String, String, String)] =
    var i = 0
    var depth = 0
    var found: Option[(String, String, String)] = None
    def boundary(at: Int) = at < 0 || at >= args.length || args(at).isWhitespace ||
      args(at) == '(' || args(at) == ')'
    while found.isEmpty && i < args.length do
      args(i) match
        case q @ ('\'' | '"') =>
          i = args.indexOf(q, i + 1) match
            case -1  => args.length
            case end => end + 1
        case '(' => depth += 1; i += 1
        case ')' => depth -= 1; i += 1
        case _ if depth == 0 && boundary(i - 1) =>
          val word = args.drop(i).takeWhile(c => !c.isWhitespace && c != '(' && c != '\'')
          if (word.equalsIgnoreCase("from") || word.equalsIgnoreCase("to")) && boundary(
              i + word.length
            )
          then found = Some((args.take(i).trim, word, args.drop(i + word.length)))
          i += math.max(word.length, 1)
        case _ => i += 1
    found

  // The file named first in `text` (quoted or one word) and the text after it.
  private def source(text: String): Either[String, (String, String)] =
    val (name, rest) =
      if text.startsWith("'") then
        val out = new StringBuilder
        var i = 1
        var closed = false
        while !closed && i < text.length do
          if text(i) == '\'' && i + 1 < text.length && text(i + 1) == '\'' then
            out += '\''; i += 2
          else if text(i) == '\'' then
            closed = true; i += 1
          else
            out += text(i); i += 1
        if closed then (Some(out.toString), text.drop(i)) else (None, "")
      else
        val word = text.takeWhile(c => !c.isWhitespace && c != ';')
        (Option.when(word.nonEmpty)(word), text.drop(word.length))
    name match
      case None => Left(s"\\copy from without a file (or with an unclosed quote): write $Usage")
      case Some(n) if !text.startsWith("'") && Set("stdin", "pstdin").contains(n.toLowerCase) =>
        Left(
          s"\\copy ... from $n: write COPY ... FROM STDIN; with its rows after it, ending with a \\. line, which weir streams"
        )
      case Some(n) if !text.startsWith("'") && n.equalsIgnoreCase("program") =>
        Left(
          "\\copy ... from program: weir apply-sql runs no programs; write the program's output to a file and \\copy from it"
        )
      case Some(n) => Right((home(n), rest))

  // psql's tilde: `~` and `~/...` are in the home directory.
  private def home(path: String): String =
    if path == "~" || path.startsWith("~/") then sys.props("user.home") + path.drop(1) else path
