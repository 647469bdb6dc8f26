package weir.postgres

/** psql's variables for what the last statement did: `ERROR`, `SQLSTATE` and `ROW_COUNT`, set after
  * each statement (not set before the first), and `LAST_ERROR_MESSAGE` and `LAST_ERROR_SQLSTATE`,
  * set from the start, as psql 15 sets them. After a success: `ERROR` `false`, `SQLSTATE` `00000`,
  * `ROW_COUNT` the rows it returned, changed or copied (`0` for a statement that does neither; for
  * a `\gexec`, its own query's rows). An apply stops at the first statement that fails unless
  * `ON_ERROR_STOP` is off ([[ApplySettings.withStopAtError]]); after a failure gone past: `ERROR`
  * `true`, `ROW_COUNT` `0`, and the error's SQLSTATE and message in the other three; the last two
  * keep the last error's until another. As psql 15, a COPY that fails and a `\gset` that finds no
  * row change none of them (checked against psql in `OnErrorStopOffSuite`).
  *
  * The source reads ahead of the server: a line that mentions `ERROR`, `SQLSTATE` or `ROW_COUNT`
  * after a statement waits there until the handler has applied it ([[SqlPiece.Results]],
  * [[PsqlState]]).
  */
private[postgres] object PsqlResults:

  /** What psql sets when it starts: no error yet. */
  val atStart: Map[String, String] =
    Map("LAST_ERROR_MESSAGE" -> "", "LAST_ERROR_SQLSTATE" -> "00000")

  /** The variables after the last statement applied, if any (`rowCount`: the rows it returned,
    * changed or copied), or failed with `failure` (its SQLSTATE and message); `lastError`, the last
    * failure gone past in the apply, if any.
    */
  def after(
      rowCount: Option[Long],
      failure: Option[(String, String)],
      lastError: Option[(String, String)]
  ): Map[String, String] =
    val last = lastError.fold(Map.empty[String, String]) { (code, message) =>
      Map("LAST_ERROR_SQLSTATE" -> code, "LAST_ERROR_MESSAGE" -> message)
    }
    val statement = (rowCount, failure) match
      case (_, Some((code, _))) => Map("ERROR" -> "true", "SQLSTATE" -> code, "ROW_COUNT" -> "0")
      case (Some(rows), None) =>
        Map("ERROR" -> "false", "SQLSTATE" -> "00000", "ROW_COUNT" -> rows.toString)
      case (None, None) => Map.empty
    last ++ statement

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
  private val mention =
    """:(?:'|"|\{\?)?(?:LAST_ERROR_MESSAGE|LAST_ERROR_SQLSTATE|ERROR|SQLSTATE|ROW_COUNT)(?![\p{L}\p{N}_])""".r

  private def mentions(text: String): Boolean =
    text.indexOf(':') >= 0 && mention.findFirstIn(text).isDefined
