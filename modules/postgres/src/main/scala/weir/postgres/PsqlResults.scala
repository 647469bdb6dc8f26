package weir.postgres

/** psql's variables for what the last statement did: `ERROR`, `SQLSTATE` and `ROW_COUNT`, set after
  * each statement (not set before the first), and `LAST_ERROR_MESSAGE` and `LAST_ERROR_SQLSTATE`,
  * set from the start. An apply stops at the first statement that fails (psql's `ON_ERROR_STOP`),
  * so a line after a statement always reads its success, as psql 15 sets it: `ERROR` `false`,
  * `SQLSTATE` `00000`, `ROW_COUNT` the rows it returned, changed or copied (`0` for a statement
  * that does neither; for a `\gexec`, its own query's rows).
  *
  * The source reads ahead of the server: a line that mentions `ERROR`, `SQLSTATE` or `ROW_COUNT`
  * after a statement waits there until the handler has applied it ([[SqlPiece.Results]],
  * [[PsqlState]]).
  */
private[postgres] object PsqlResults:

  /** What psql sets when it starts: no error yet. */
  val atStart: Map[String, String] =
    Map("LAST_ERROR_MESSAGE" -> "", "LAST_ERROR_SQLSTATE" -> "00000")

  /** The variables after a statement that succeeded with `rowCount` rows. */
  def after(rowCount: Long): Map[String, String] =
    Map("ERROR" -> "false", "SQLSTATE" -> "00000", "ROW_COUNT" -> rowCount.toString)

  /** Where `piece` is, when, read with psql's variables, it may read one set after each statement.
    */
  def mentionedAt(piece: SqlPiece): Option[SqlPosition] = piece match
    case s: SqlPiece.Statement                       => Option.when(mentions(s.sql))(s.at)
    case e: SqlPiece.Echo                            => Option.when(mentions(e.text))(e.at)
    case v @ SqlPiece.Variable(_, Some(words), _, _) => Option.when(mentions(words))(v.at)
    case c: SqlPiece.Conditional                     => Option.when(mentions(c.expression))(c.at)
    case i: SqlPiece.Include                         => Option.when(mentions(i.path))(i.at)
    case c: SqlPiece.Connect                         => Option.when(mentions(c.database))(c.at)
    case _                                           => None

  // `:NAME`, `:'NAME'`, `:"NAME"` or `:{?NAME}` for one of them (in a quoted string too: a wait
  // too many costs a round trip, never a wrong value).
  private val mention = """:(?:'|"|\{\?)?(?:ERROR|SQLSTATE|ROW_COUNT)(?![\p{L}\p{N}_])""".r

  private def mentions(text: String): Boolean =
    text.indexOf(':') >= 0 && mention.findFirstIn(text).isDefined
