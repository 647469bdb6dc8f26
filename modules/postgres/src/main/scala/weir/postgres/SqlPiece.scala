package weir.postgres

import fs2.Chunk

/** Where something begins in a SQL file: its 1-based line and column (in characters). */
final case class SqlPosition(file: String, line: Long, column: Int):
  /** `file:line:column`, as compilers and psql print it. */
  def show: String = s"$file:$line:$column"

  /** `file:line`. */
  def showLine: String = s"$file:$line"

/** How far into its file a piece ends: bytes and line breaks read through it (for progress). */
final case class Mark(bytes: Long, lines: Long)

/** One piece of a SQL file, as [[SqlSplitter]] cuts it: a whole statement, or a chunk of the body
  * of a `COPY ... FROM STDIN`, or the end of that body.
  */
enum SqlPiece:

  /** A whole statement, without its `;`, leading whitespace and comments. `copyFromStdin` when it
    * is a `COPY ... FROM STDIN`: its body follows as [[CopyData]] pieces, then a [[CopyEnd]];
    * `bodyFrom` names the file that body is read from when it is not the statement's own (a `\copy
    * ... from FILE` line, [[ClientCopy]]). `resultTo` when psql's `\gset` or `\gexec` ended it in
    * place of a `;`: where its result goes ([[SqlPiece.ResultTo]]). `joined`: psql's `\;` put
    * statements together in it, sent as one query (as psql sends them: one implicit transaction
    * without a file's own), alone in its round trip.
    */
  case Statement(
      sql: String,
      at: SqlPosition,
      end: Mark,
      copyFromStdin: Boolean,
      bodyFrom: Option[String] = None,
      resultTo: Option[SqlPiece.ResultTo] = None,
      joined: Boolean = false
  )

  /** Part of a COPY body: whole lines (a line longer than the chunk size is cut), at most the
    * splitter's chunk size; `rows` line breaks in it.
    */
  case CopyData(bytes: Chunk[Byte], rows: Int, end: Mark)

  /** The end of the COPY body that began at `copy`: a `\.` line (`terminated`) or the end of the
    * file.
    */
  case CopyEnd(copy: SqlPosition, end: Mark, terminated: Boolean)

  /** A psql `\i FILE` or `\include FILE` line (`relative`: `\ir` or `\include_relative`, read from
    * the including file's directory rather than the working directory), at `at`: the pieces of that
    * file go here. `path` is FILE as written (psql's quotes and variables), until [[PsqlScript]]
    * reads it where the line is reached. [[SqlApplier]] reads it in the including file's
    * transaction; a migration may not include one ([[TransactionCheck]]).
    */
  case Include(path: String, relative: Boolean, at: SqlPosition, end: Mark)

  /** A psql `\copy ... from FILE` line at `at`: the `COPY ... FROM STDIN` statement `sql` it stands
    * for, whose body is the bytes of the file at `path` (from the working directory, as psql reads
    * it), sent as they are. [[SqlApplier]] reads it in the file's transaction; a migration may not
    * hold one ([[TransactionCheck]]).
    */
  case ClientCopy(sql: String, path: String, at: SqlPosition, end: Mark)

  /** A psql `\set NAME VALUE...` line (`value`: the line after the name, read when it is reached,
    * [[PsqlVariableLine]]) or `\unset NAME` (`value` `None`), at `at`: the variable holds from here
    * on ([[PsqlVariables]]).
    */
  case Variable(name: String, value: Option[String], at: SqlPosition, end: Mark)

  /** A psql `\echo TEXT` line (also `\qecho` and `\warn`), at `at`: `text` is the line after the
    * command, read when it is reached ([[PsqlVariableLine]]: words joined by one space, quotes,
    * variables); the apply says it there ([[ApplyRecorder.echoed]]). Also the statement at `at`,
    * said before it is sent under psql's `ECHO` ([[PsqlScript.echoing]]).
    */
  case Echo(text: String, at: SqlPosition, end: Mark)

  /** A psql `\if EXPR`, `\elif EXPR`, `\else` or `\endif` line (`command`), at `at`: the pieces up
    * to the next such line are applied or not as EXPR says ([[PsqlScript]]).
    */
  case Conditional(command: String, expression: String, at: SqlPosition, end: Mark)

  /** A psql `\connect DATABASE` (`\c`) line at `at`: what follows runs on a connection to
    * `database` on the same server, as the same user.
    */
  case Connect(database: String, at: SqlPosition, end: Mark)

  /** A line of the file as read, `text` without its line break, for psql's `-a` (`ECHO` `all`):
    * before the pieces that end on it ([[LineEcho]]; only when the splitter is asked for lines).
    */
  case Line(text: String, at: SqlPosition, end: Mark)

  /** A psql `\q` (`\quit`) line at `at`: its file ends here, as psql ends a script there (an
    * included file returns to the file that included it; the next file goes on).
    */
  case Quit(at: SqlPosition, end: Mark)

  /** Where the piece at `at` reads psql's variables for the last statement's result
    * ([[PsqlResults]]) after a statement was given out: made by [[PsqlScript]], not read from a
    * file; the source waits here until the handler has applied what came before.
    */
  case Results(at: SqlPosition, end: Mark)

  /** How far into the file this piece ends. */
  def end: Mark

  /** This piece, said to end at `mark` of another file (one it was included in). */
  def ending(mark: Mark): SqlPiece = this match
    case s: Statement   => s.copy(end = mark)
    case d: CopyData    => d.copy(end = mark)
    case e: CopyEnd     => e.copy(end = mark)
    case i: Include     => i.copy(end = mark)
    case c: ClientCopy  => c.copy(end = mark)
    case v: Variable    => v.copy(end = mark)
    case e: Echo        => e.copy(end = mark)
    case c: Conditional => c.copy(end = mark)
    case c: Connect     => c.copy(end = mark)
    case q: Quit        => q.copy(end = mark)
    case l: Line        => l.copy(end = mark)
    case r: Results     => r.copy(end = mark)

object SqlPiece:

  /** Where a statement's result goes when a psql meta-command ends it in place of its `;`. */
  enum ResultTo:

    /** `\gset [PREFIX]`: its one row's columns set variables, named PREFIX and the column's name,
      * for what follows ([[PsqlGset]]); what follows waits for them ([[PsqlState]]).
      */
    case Variables(prefix: String)

    /** `\gexec`: each value of its result, row by row and left to right (`NULL`s skipped), runs as
      * a statement of its own, sent as it is; `echo`: each is said first (psql's `ECHO`,
      * [[PsqlScript.echoing]]).
      */
    case Statements(echo: Boolean)
