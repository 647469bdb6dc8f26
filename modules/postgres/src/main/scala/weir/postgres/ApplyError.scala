package weir.postgres

/** Why applying SQL failed, each with a message that names where and what to do. Passwords never
  * appear in them: targets are shown by [[PgTarget.show]].
  */
sealed abstract class ApplyError(message: String, cause: Throwable | Null = null)
    extends Exception(message, cause)

object ApplyError:

  /** What the server said about a failed statement. */
  final case class ServerMessage(
      sqlState: String,
      message: String,
      detail: Option[String],
      hint: Option[String],
      where: Option[String],
      position: Option[Int]
  )

  /** A statement (or a COPY body) failed on the server.
    *
    * @param statement
    *   where the statement begins
    * @param at
    *   where the error is, as close as the server tells: its position in the statement, or the line
    *   of a COPY body; else the statement's start
    * @param firstLine
    *   the statement's first line
    * @param suggestion
    *   what to try, when weir knows (`--no-transaction` for "cannot run inside a transaction
    *   block")
    */
  final case class StatementFailed(
      statement: SqlPosition,
      at: SqlPosition,
      server: ServerMessage,
      firstLine: String,
      suggestion: Option[String],
      rolledBack: Option[String]
  ) extends ApplyError(
        (List(
          s"${at.show}: ERROR ${server.sqlState}: ${server.message}",
          s"  statement at ${statement.show}: $firstLine"
        ) ++ server.detail.map("  detail: " + _) ++ server.hint.map("  hint: " + _) ++
          server.where.map("  where: " + _) ++ suggestion.map("  try: " + _) ++
          rolledBack.map("  " + _)).mkString("\n")
      )

  /** No connection: the server is not there, refused us, or the password is wrong. */
  final case class ConnectFailed(target: String, reason: String)
      extends ApplyError(s"cannot connect to $target: $reason")

  /** The connection broke while applying (the server stopped, the network failed). */
  final case class ConnectionLost(target: String, reason: String)
      extends ApplyError(
        s"the connection to $target was lost: $reason; the open transaction, if any, was rolled back by the server"
      )

  /** An applied migration's file changed since it was applied. */
  final case class ChecksumChanged(file: String, recorded: String, now: String)
      extends ApplyError(
        s"$file was applied with SHA-256 $recorded but now has $now: an applied migration must not change (revert the file, or add a new migration with the change)"
      )

  /** A migrations directory that cannot be used. */
  final case class BadMigrations(reason: String) extends ApplyError(reason)
