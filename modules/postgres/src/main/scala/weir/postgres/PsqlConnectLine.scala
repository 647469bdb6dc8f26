package weir.postgres

/** The database a psql `\connect` (`\c`) line names, read as psql reads its arguments: a word in
  * double quotes keeps its spaces (`""` inside is one `"`), one in single quotes too (`''` inside
  * is one `'`). weir stays on the server and user it was given, so of psql's forms it follows `\c
  * DBNAME`, and `\c -reuse-previous=on "dbname='NAME'"`, the connection string with a database
  * alone that pg_dump and pg_dumpall write; anything else is refused with the reason.
  */
private[postgres] object PsqlConnectLine:

  /** The database named by the arguments `args` (the line after the command), or why not. */
  def database(args: String): Either[String, String] =
    val words = arguments(args) match
      case "-reuse-previous=on" :: rest => Right(rest)
      case first :: _ if first.startsWith("-reuse-previous") =>
        Left(
          s"$first: weir keeps the server and user it was given; give -reuse-previous=on, or none"
        )
      case rest => Right(rest)
    words.flatMap {
      case one :: Nil if one.contains("://") =>
        Left(
          "a connection URI: weir stays on the server and user it was given; give a database name"
        )
      case one :: Nil if one.contains("=") => databaseOf(one)
      case one :: Nil if one != "-"        => Right(one)
      case Nil | "-" :: Nil                => Left("give the database to connect to")
      case _ => Left("weir stays on the server and user it was given: give a database name only")
    }

  /** `args` cut into psql's words. */
  private def arguments(args: String): List[String] =
    val words = List.newBuilder[String]
    val word = new StringBuilder
    var started = false
    var i = 0
    def quoted(quote: Char): Unit =
      i += 1
      while i < args.length && !(args(i) == quote && !args.startsWith(s"$quote$quote", i)) do
        if args(i) == quote then i += 1 // a doubled quote: one of it
        word += args(i)
        i += 1
      i += 1
    while i < args.length do
      val c = args(i)
      if c.isWhitespace then
        if started then words += word.result()
        word.clear(); started = false; i += 1
      else
        started = true
        if c == '"' || c == '\'' then quoted(c)
        else
          word += c; i += 1
    if started then words += word.result()
    words.result()

  /** The `dbname` of a libpq connection string (`key=value ...`, a value in single quotes with `\`
    * escapes), or why it cannot be followed: it names something besides the database.
    */
  private def databaseOf(conninfo: String): Either[String, String] =
    val pair = """\s*([A-Za-z_]+)\s*=\s*('(?:[^'\\]|\\.)*'|\S+)""".r
    val matches = pair.findAllMatchIn(conninfo).toList
    val pairs = matches.map { m =>
      val v = m.group(2)
      val value =
        if v.startsWith("'") then v.drop(1).dropRight(1).replaceAll("""\\(.)""", "$1") else v
      m.group(1) -> value
    }
    val covered = matches.map(_.matched.length).sum
    pairs match
      case ("dbname", name) :: Nil if covered == conninfo.trim.length || conninfo.trim.isEmpty =>
        Right(name)
      case _ =>
        Left(
          "a connection string naming more than its dbname: weir stays on the server and user it was given; give a database name"
        )
