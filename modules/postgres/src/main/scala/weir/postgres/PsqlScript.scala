package weir.postgres

import fs2.Chunk

/** What psql's client-side commands have set so far in an apply, across its files, as in one psql
  * session: the variables ([[PsqlVariables]]) and the open `\if` blocks, innermost first. Pure:
  * [[read]] takes pieces in order and says what is sent; [[SqlIncludes.expand]] drives it.
  *
  * `\if EXPR`, `\elif EXPR`, `\else` and `\endif` are psql's: EXPR, its variables replaced
  * (`:{?NAME}` is `TRUE` when NAME is set), must be a boolean as psql reads one (`true`, `off`,
  * `1`, `yes`... in any case, or a prefix of them); in a branch not taken nothing is sent, set,
  * said, included or copied. A block must end in the file it begins in. A statement that `\gset`
  * ends stops the reading after it: the variables its row sets ([[PsqlGset]]) come from the handler
  * ([[PsqlState]]) before the next piece is read, and so does a `\connect`: psql's `DBNAME` changes
  * with it. A piece that mentions a variable set after each statement ([[PsqlResults]]) waits the
  * same way when a statement was given out since the last answer (`fresh` false).
  */
private[postgres] final case class PsqlScript(
    vars: Map[String, String],
    branches: List[PsqlScript.Branch],
    fresh: Boolean = true,
    lines: Boolean = false
):

  /** Whether pieces here are applied: every open block is in its branch taken. */
  def active: Boolean = branches.headOption.forall(_.active)

  /** Whether each statement is said before it is sent: psql's `ECHO` is `queries` (`psql -e`), or
    * `all` when the files' lines are not read ([[lines]]: `ECHO` was not `all` at the start, a file
    * set it), which then says the statements sent in their place.
    */
  def echoing: Boolean = vars.get("ECHO").exists { v =>
    v.equalsIgnoreCase("queries") || (v.equalsIgnoreCase("all") && !lines)
  }

  /** Whether each line read is said ([[SqlPiece.Line]]): psql's `ECHO` is `all` (`psql -a`) and the
    * splitter gives the lines ([[lines]]: `ECHO` was `all` at the start).
    */
  def echoingLines: Boolean = lines && vars.get("ECHO").exists(_.equalsIgnoreCase("all"))

  /** Whether `chunk` passes as it is: no block is open, statements are not said ([[echoing]]) and
    * it holds nothing of psql's (a psql line, a `\\gset`, a statement with a `:` while a variable
    * is set).
    */
  def passes(chunk: Chunk[SqlPiece]): Boolean =
    branches.isEmpty && !echoing && !chunk.exists {
      case s: SqlPiece.Statement => s.resultTo.nonEmpty || (vars.nonEmpty && s.sql.contains(':'))
      case _: SqlPiece.CopyData | _: SqlPiece.CopyEnd => false
      case _                                          => true
    }

private[postgres] object PsqlScript:

  /** An open `\if` block begun at `at`: whether its current branch is applied (`active`), whether a
    * branch of it was (`taken`), whether the block itself is in an applied branch (`outer`), and
    * whether its `\else` was read.
    */
  final case class Branch(
      at: SqlPosition,
      active: Boolean,
      taken: Boolean,
      outer: Boolean,
      elseRead: Boolean
  )

  /** No block: a session's start, with `vars` (`psql -v`'s and the connection's) and psql's own
    * ([[PsqlResults.atStart]]).
    */
  def start(vars: Map[String, String]): PsqlScript =
    PsqlScript(PsqlResults.atStart ++ vars, Nil, lines = linesRead(vars))

  /** Whether the files' lines are read for psql's `-a` ([[SqlSplitter.pipe]]'s `lines`): `ECHO` is
    * `all` in `vars`, at the start.
    */
  def linesRead(vars: Map[String, String]): Boolean =
    vars.get("ECHO").exists(_.equalsIgnoreCase("all"))

  /** What [[read]] made of a chunk: the pieces to send, the state after them, and where it stopped
    * early (at index `i` of the chunk, in an applied branch): at a `\\q` (the file ends there), at
    * an include (its path read, psql's quotes and variables) or `\copy` to expand, after a
    * statement ended by `\gset` or a `\connect` (the last of `out`: what follows waits for the
    * variables they set), before a piece that reads the last statement's result
    * ([[SqlPiece.Results]], at the index of that piece, read again once the answer has come), or at
    * an error.
    */
  final case class Read(
      out: Chunk[SqlPiece],
      state: PsqlScript,
      stop: Option[(Int, SqlPiece)],
      error: Option[SplitError]
  )

  /** Reads `chunk` from `from` with `start`, up to its end, an include or `\copy` to expand, a
    * `\gset`, or an error.
    */
  def read(chunk: Chunk[SqlPiece], from: Int, start: PsqlScript): Read =
    val out = Vector.newBuilder[SqlPiece]
    var s = start
    var i = from
    var stop: Option[(Int, SqlPiece)] = None
    var error: Option[SplitError] = None
    // Takes the piece at `i` (in a branch taken or not), then moves past it.
    def take(piece: SqlPiece): Unit =
      piece match
        // psql says a line as it reads it, in a branch not taken too.
        case l: SqlPiece.Line =>
          if s.echoingLines then out += SqlPiece.Echo(l.text, l.at, l.end)
        case c: SqlPiece.Conditional => branch(c, s).fold(e => error = Some(e), s = _)
        case _ if !s.active          => ()
        case c: SqlPiece.ClientCopy =>
          s = s.copy(fresh = false)
          stop = Some((i, c))
        case q: SqlPiece.Quit => stop = Some((i, q))
        case inc: SqlPiece.Include =>
          PsqlVariableLine
            .value(inc.path, s.vars)
            .fold(
              r => error = Some(SplitError.Unsupported(inc.at, s"\\i ${inc.path}: $r")),
              path => stop = Some((i, inc.copy(path = path)))
            )
        case SqlPiece.Variable(name, None, _, _) => s = s.copy(vars = s.vars - name)
        case SqlPiece.Variable(name, Some(words), at, _) =>
          PsqlVariableLine
            .value(words, s.vars)
            .flatMap(v => PsqlVariables.refused(name, v).map(r => s"\\set $name: $r").toLeft(v))
            .fold(
              r => error = Some(SplitError.Unsupported(at, r)),
              v => s = s.copy(vars = s.vars + (name -> v))
            )
        case e: SqlPiece.Echo =>
          PsqlVariableLine
            .value(e.text, s.vars, separator = " ")
            .fold(r => error = Some(SplitError.Unsupported(e.at, r)), t => out += e.copy(text = t))
        case st: SqlPiece.Statement =>
          val said = if s.echoing || s.echoingLines then PsqlScript.echoed(st) else st
          PsqlExpansion.statements(said, s.vars) match
            case Left(reason) => error = Some(SplitError.Unsupported(st.at, reason))
            case Right(parts) =>
              parts.foreach { part =>
                // psql says a statement as it sends it: with its ; unless \gset or \gexec ended it.
                if s.echoing then
                  out += SqlPiece.Echo(
                    part.sql + (if part.resultTo.isEmpty then ";" else ""),
                    st.at,
                    st.end
                  )
                out += part
              }
              if s.fresh then s = s.copy(fresh = false)
              if st.resultTo.exists(_.isInstanceOf[SqlPiece.ResultTo.Variables]) then
                stop = Some((i, parts.lastOption.getOrElse(st)))
        case c: SqlPiece.Connect =>
          // A name in double quotes comes without them; one with a variable, as written.
          val named =
            if c.database.contains(':') then PsqlVariableLine.value(c.database, s.vars)
            else Right(c.database)
          named
            .filterOrElse(
              d => !d.contains("=") && !d.contains("://"),
              "a connection string: weir stays on the server and user it was given"
            )
            .fold(
              r => error = Some(SplitError.Unsupported(c.at, s"\\connect ${c.database}: $r")),
              database =>
                out += c.copy(database = database)
                stop = Some((i, c))
            )
        case other => out += other
      i += 1
    while i < chunk.size && stop.isEmpty && error.isEmpty do
      val piece = chunk(i)
      val reads =
        if s.fresh || !(s.active || piece.isInstanceOf[SqlPiece.Conditional]) then None
        else PsqlResults.mentionedAt(piece)
      reads match
        case Some(at) => stop = Some((i, SqlPiece.Results(at, piece.end)))
        case None     => take(piece)
    Read(Chunk.from(out.result()), s, stop, error)

  /** `st` with the statements its `\\gexec` generates said too. */
  private def echoed(st: SqlPiece.Statement): SqlPiece.Statement = st.resultTo match
    case Some(SqlPiece.ResultTo.Statements(_)) =>
      st.copy(resultTo = Some(SqlPiece.ResultTo.Statements(echo = true)))
    case _ => st

  /** The error for blocks opened in a file (`depth` open when it began) and left open at its end.
    */
  def unclosed(state: PsqlScript, depth: Int): Option[SplitError] =
    Option.when(state.branches.size > depth)(
      SplitError.Unsupported(
        state.branches.head.at,
        "\\if without \\endif in its file: a block ends in the file it begins in"
      )
    )

  private def branch(c: SqlPiece.Conditional, s: PsqlScript): Either[SplitError, PsqlScript] =
    def fail(reason: String) = Left(SplitError.Unsupported(c.at, reason))
    def truth = PsqlVariableLine.value(c.expression, s.vars, separator = " ").flatMap { v =>
      PsqlVariables
        .boolean(v)
        .toRight(s"${c.command} ${v.take(40)}: not a boolean (true or false, on or off, 1 or 0)")
    }
    def set(b: Branch, rest: List[Branch]) = Right(s.copy(branches = b :: rest))
    (c.command, s.branches) match
      case ("\\if", open) =>
        if !s.active then set(Branch(c.at, false, true, false, false), open)
        else truth.fold(fail, t => set(Branch(c.at, t, t, true, false), open))
      case (command, Nil)                   => fail(s"$command without \\if")
      case ("\\elif", b :: _) if b.elseRead => fail("\\elif after \\else")
      case ("\\elif", b :: rest) =>
        if !b.outer || b.taken then set(b.copy(active = false), rest)
        else truth.fold(fail, t => set(b.copy(active = t, taken = t), rest))
      case ("\\else", b :: _) if b.elseRead => fail("\\else after \\else")
      case ("\\else", b :: rest) =>
        set(b.copy(active = b.outer && !b.taken, taken = true, elseRead = true), rest)
      case (_, _ :: rest) => Right(s.copy(branches = rest)) // \endif
