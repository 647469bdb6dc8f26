package weir.postgres

import java.sql.SQLException
import org.postgresql.util.PSQLException

/** A statement's error as an apply raises it: placed in its file as closely as the server says (an
  * [[ApplyError.StatementFailed]]), a lost connection to `target` said as one
  * ([[ApplyError.ConnectionLost]]), any other driver error as it is. Pure: it only builds the
  * error.
  */
private[postgres] final class PlacedFailure(target: PgTarget):

  /** A COPY's error; the server names the body's line, counted from the line after `;`, or from the
    * first line of the file a `\copy` reads (not when the body is spread over connections: each
    * counts its own lines).
    */
  def failedCopy(
      file: SqlFile,
      statement: SqlPiece.Statement,
      lines: Boolean = true
  ): PartialFunction[Throwable, Throwable] = { case e: SQLException =>
    val line = Option.when(lines)(PlacedFailure.copyLine(e)).flatten.map { n =>
      statement.bodyFrom match
        case Some(path) => SqlPosition(path, n, 1)
        case None       => SqlPosition(statement.at.file, statement.end.lines + 1 + n, 1)
    }
    failed(file, statement, e, line, PgSession.positionOf(e))
  }

  /** The error of `statement`, placed in the file as closely as the server says: at `position` in
    * the statement (1-based, in characters), or at `line`, a COPY body's.
    */
  def failed(
      file: SqlFile,
      statement: SqlPiece.Statement,
      error: SQLException,
      line: Option[SqlPosition],
      position: Option[Int]
  ): Throwable =
    val server = Option(error match
      case p: PSQLException => p.getServerErrorMessage
      case _                => null
    )
    server match
      case None =>
        val reason = Option(error.getMessage).getOrElse(error.toString)
        if Option(error.getSQLState).exists(_.startsWith("08")) then
          ApplyError.ConnectionLost(target.show, reason)
        else error
      case Some(m) =>
        val message = ApplyError.ServerMessage(
          Option(m.getSQLState).getOrElse("?????"),
          Option(m.getMessage).getOrElse(error.getMessage),
          Option(m.getDetail),
          Option(m.getHint),
          Option(m.getWhere),
          position
        )
        val at =
          line.getOrElse(message.position.fold(statement.at)(SqlApplier.locate(statement, _)))
        ApplyError.StatementFailed(
          statement.at,
          at,
          message,
          statement.sql.linesIterator.nextOption().getOrElse(""),
          file.transactional,
          Option.when(statement.at.file != file.name)(file.name)
        )

private[postgres] object PlacedFailure:

  private val copyLinePattern = """COPY [^,]+, line (\d+)""".r.unanchored

  /** The body line a COPY error names in its context ("COPY big, line 12, column x: ..."). */
  private def copyLine(error: SQLException): Option[Long] = error match
    case p: PSQLException =>
      Option(p.getServerErrorMessage).flatMap(m => Option(m.getWhere)).collect {
        case copyLinePattern(n) => n.toLong
      }
    case _ => None
