package weir.postgres

/** The psql meta-commands (a line starting with `\\` outside a COPY body) that [[SqlLexer]] reads:
  * `\\i` and `\\ir` include a file ([[SqlPiece.Include]]); `\\copy ... from FILE` copies a file
  * into a table ([[SqlPiece.ClientCopy]], [[PsqlCopy]]); `\\set` and `\\unset` set variables
  * ([[SqlPiece.Variable]], [[PsqlVariables]]); `\\echo`, `\\qecho` and `\\warn` say a line
  * ([[SqlPiece.Echo]]); `\\if`, `\\elif`, `\\else` and `\\endif` are blocks
  * ([[SqlPiece.Conditional]], [[PsqlScript]]); `\\connect DATABASE` moves to another database
  * ([[SqlPiece.Connect]]); `\\getenv NAME ENV` sets a variable from the environment, read when the
  * line is split; `\\q` ends the file ([[SqlPiece.Quit]]); `\\g`, `\\gset` and `\\gexec` end a
  * statement ([[sending]]); pg_dump's `\\restrict` and `\\unrestrict` and the commands that only
  * shape psql's output are skipped ([[skipped]]), and so is `\\encoding` naming UTF-8 or
  * `SQL_ASCII` (pg_dumpall's); any other is refused ([[SplitError.MetaCommand]]).
  */
private[postgres] object PsqlMeta:

  /** The piece the meta-command `line` (read from `at`, through byte `end` of its file) stands for:
    * an include, or `None` when it is skipped. `inStatement`: a statement has begun and not ended
    * before the line. Throws [[SplitError]] for a command weir does not follow, or an include
    * inside a statement.
    */
  def read(line: String, at: SqlPosition, inStatement: Boolean, end: Long): Option[SqlPiece] =
    val trimmed = line.trim
    val words = trimmed.split("[ \t\r\f]+").toList
    def outside[A](piece: A): A =
      if inStatement then
        throw SplitError.Unsupported(
          at,
          s"${words.head} inside a statement (before its ;): end the statement before the line"
        )
      piece
    including(trimmed) match
      case Some((path, relative)) =>
        Some(outside(SqlPiece.Include(path, relative, at, Mark(end, at.line))))
      case None if words.head.equalsIgnoreCase("\\copy") =>
        PsqlCopy.read(trimmed.drop(words.head.length)) match
          case Right((sql, path)) =>
            Some(outside(SqlPiece.ClientCopy(sql, path, at, Mark(end, at.line))))
          case Left(reason) => throw SplitError.Unsupported(at, reason)
      case None if Set("\\echo", "\\qecho", "\\warn").contains(words.head) =>
        val text = trimmed.drop(words.head.length).trim
        val line = if text == "-n" || text.startsWith("-n ") then text.drop(2).trim else text
        Some(outside(SqlPiece.Echo(line, at, Mark(end, at.line))))
      case None if Set("\\if", "\\elif", "\\else", "\\endif").contains(words.head) =>
        val expression = trimmed.drop(words.head.length).trim
        val command = words.head
        if expression.isEmpty && (command == "\\if" || command == "\\elif") then
          throw SplitError.Unsupported(at, s"$command without an expression (true or false)")
        Some(outside(SqlPiece.Conditional(command, expression, at, Mark(end, at.line))))
      case None if words.head == "\\c" || words.head == "\\connect" =>
        PsqlConnectLine.database(trimmed.drop(words.head.length)) match
          case Right(database) => Some(outside(SqlPiece.Connect(database, at, Mark(end, at.line))))
          case Left(why)       => throw SplitError.Unsupported(at, s"${words.head}: $why")
      case None if words.head == "\\q" || words.head == "\\quit" =>
        Some(outside(SqlPiece.Quit(at, Mark(end, at.line))))
      case None if words.head == "\\getenv" =>
        words.drop(1) match
          case List(name, env) if PsqlVariables.validName(name) =>
            // Not set in the environment: the variable is left as it is, as psql leaves it.
            sys.env.get(env).map { value =>
              outside(
                SqlPiece
                  .Variable(name, Some(PsqlVariableLine.quoted(value)), at, Mark(end, at.line))
              )
            }
          case _ =>
            throw SplitError.Unsupported(
              at,
              "\\getenv takes a variable's name and an environment variable's, as in \\getenv home HOME"
            )
      case None if words.head == "\\set" || words.head == "\\unset" =>
        variable(words.head, trimmed.drop(words.head.length).trim, at).map { (name, value) =>
          outside(SqlPiece.Variable(name, value, at, Mark(end, at.line)))
        }
      case None if words.head == "\\encoding" =>
        if words.drop(1).forall(PsqlMeta.utf8Compatible) then None
        else
          throw SplitError.Unsupported(
            at,
            s"\\encoding ${words(1)}: weir reads files as UTF-8 and speaks UTF8 to the server; convert the file (iconv -f ${words(1)} -t UTF-8) and remove the line"
          )
      case None if trimmed.startsWith("\\:") =>
        throw SplitError.Unsupported(
          at,
          "psql's \\: (a colon kept from variable substitution) is not followed: write : alone (weir replaces :NAME only when NAME is set)"
        )
      case None =>
        if skipped(words) then None
        else throw SplitError.MetaCommand(at.file, at.line, trimmed.take(60))

  /** What the meta-command `line` does with the statement before it (the query buffer, in psql's
    * words), when it is one that sends it: `\\g` sends it as a `;` would (`Some(None)`), `\\gset
    * [PREFIX]` and `\\gexec` send it and say where its result goes (`Some(Some(...))`,
    * [[SqlPiece.ResultTo]]); `None` for any other command. `started`: a statement has begun before
    * the line. Throws [[SplitError]] for psql's commands that print a query's results (`\\gx`,
    * `\\gdesc`, `\\crosstabview`, `\\watch`, `\\g FILE`), and for these commands with no statement
    * before them (psql would send the previous statement again).
    */
  def sending(
      line: String,
      at: SqlPosition,
      started: Boolean
  ): Option[Option[SqlPiece.ResultTo]] =
    val words = line.trim.split("[ \t\r\f]+").toList
    def refuse(why: String) = throw SplitError.Unsupported(at, s"${words.head}: $why")
    val sends = words match
      case "\\g" :: Nil    => Some(None)
      case "\\g" :: _      => refuse("weir prints no results: end the statement with ; instead")
      case "\\gset" :: Nil => Some(Some(SqlPiece.ResultTo.Variables("")))
      case "\\gset" :: prefix :: Nil => Some(Some(SqlPiece.ResultTo.Variables(prefix)))
      case "\\gexec" :: Nil          => Some(Some(SqlPiece.ResultTo.Statements(echo = false)))
      case "\\gset" :: _ => refuse("one prefix at most, and no other command on its line")
      case ("\\gx" | "\\gdesc" | "\\crosstabview" | "\\watch") :: _ =>
        refuse("weir prints no results: end the statement with ; instead")
      case "\\gexec" :: _ => refuse("no argument, and no other command on its line")
      case _              => None
    if sends.isDefined && !started then
      refuse(
        "no statement before it on its line or the lines above (after the last ;): psql would send the previous statement again; write it in place of that statement's ;"
      )
    sends

  /** The client encodings a `\\encoding` line may name, skipped: UTF-8's names, and `SQL_ASCII` (no
    * conversion; pg_dumpall writes it before a `\\connect`, then sets `client_encoding` itself).
    * weir reads every file as UTF-8 and refuses one that is not.
    */
  private def utf8Compatible(name: String): Boolean =
    val upper = name.stripPrefix("'").stripSuffix("'").toUpperCase(java.util.Locale.ROOT)
    upper == "SQL_ASCII" || SqlStatements.utf8Names.contains(upper)

  /** The longest meta-command line read (a `\\copy` with its column list and options). */
  val LineMax = 64 * 1024

  /** Adds byte `b` to the meta-command line being read at `at`; a line longer than [[LineMax]] is
    * refused.
    */
  def keep(line: java.io.ByteArrayOutputStream, b: Int, at: => SqlPosition): Unit =
    if line.size < LineMax then line.write(b)
    else
      throw SplitError.Unsupported(at, s"a psql meta-command line longer than ${LineMax / 1024} KB")

  /** Whether the psql meta-command whose line's `words` these are is skipped: it changes nothing
    * weir does: pg_dump's `\restrict` and `\unrestrict` (its guard against a dump's text being run
    * as commands), and the commands that only shape how psql prints results, which weir does not
    * print (`\pset`, `\timing`, `\x`, `\a`, `\t`, `\f`, `\H`, `\T`, `\C`), and `\o` sending them
    * nowhere (`\o` alone: back to the standard output; `\o /dev/null`). Any other is refused
    * ([[SplitError.MetaCommand]]), `\o FILE` among them.
    */
  def skipped(words: List[String]): Boolean = words match
    case command :: _ if skippedCommands.contains(command)         => true
    case ("\\o" | "\\out") :: Nil                                  => true
    case ("\\o" | "\\out") :: ("/dev/null" | "'/dev/null'") :: Nil => true
    case _                                                         => false

  private val skippedCommands = Set(
    "\\restrict",
    "\\unrestrict",
    "\\pset",
    "\\timing",
    "\\x",
    "\\a",
    "\\t",
    "\\f",
    "\\H",
    "\\T",
    "\\C"
  )

  /** The variable a `\set` or `\unset` line (`args`: after the command) sets, and its value's text
    * (`None`: unset); `None` for `\set` alone, which only lists the variables in psql.
    */
  private def variable(
      command: String,
      args: String,
      at: SqlPosition
  ): Option[(String, Option[String])] =
    val name = args.takeWhile(c => !c.isWhitespace)
    val rest = args.drop(name.length).trim
    if name.isEmpty && command == "\\set" then None
    else if !PsqlVariables.validName(name) then
      throw SplitError.Unsupported(
        at,
        s"$command ${name.take(40)}: a variable's name is letters, digits and _"
      )
    else if command == "\\unset" then
      if rest.nonEmpty then throw SplitError.Unsupported(at, s"\\unset $name: one name only")
      Some((name, None))
    else
      // Refused here when the value is plain; one made of variables, when it is set.
      PsqlVariableLine.value(rest, Map.empty).toOption.flatMap(PsqlVariables.refused(name, _)) match
        case Some(reason) => throw SplitError.Unsupported(at, s"\\set $name: $reason")
        case None         => Some((name, Some(rest)))

  /** The file a psql include line (trimmed) names (`\\i FILE`, `\\include FILE`; relative: `\\ir`,
    * `\\include_relative`), as written: one argument, in single quotes when it holds spaces, with
    * psql's variables in it (read when the line is reached: [[PsqlScript]], [[PsqlVariableLine]]);
    * `None` for any other line.
    */
  def including(line: String): Option[(String, Boolean)] =
    val command = line.takeWhile(c => !c.isWhitespace)
    val relative = command match
      case "\\i" | "\\include"           => Some(false)
      case "\\ir" | "\\include_relative" => Some(true)
      case _                             => None
    val rest = line.drop(command.length).trim
    val quoted = rest.startsWith("'") && rest.length >= 2 && rest.endsWith("'")
    val path = Option.when(quoted || (rest.nonEmpty && !rest.exists(_.isWhitespace)))(rest)
    relative.flatMap(r => path.map((_, r)))
