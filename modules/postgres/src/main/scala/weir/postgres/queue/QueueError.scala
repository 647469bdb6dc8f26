package weir.postgres.queue

/** Why the queue cannot be used, each with a message that names the database and what to do.
  * Passwords never appear in them: targets are shown by [[weir.postgres.PgTarget.show]]. Statements
  * that fail on the server are raised as the driver's `SQLException`s, not as these.
  */
sealed abstract class QueueError(message: String) extends Exception(message)

object QueueError:

  /** No connection to the queue's database could be made: the server is not there (or not accepting
    * connections yet), refused us, or the password is wrong. A worker's connections ([[QueueDb]])
    * try again after a backoff ([[QueueDb.lost]] says this is a lost connection).
    */
  final case class ConnectFailed(target: String, reason: String)
      extends QueueError(s"cannot connect to $target: $reason")

  /** The database has no queue: `weir.jobs` does not exist ([[QueueSchema.migrate]] creates it). */
  final case class NoQueue(target: String)
      extends QueueError(
        s"$target has no queue yet (no table weir.jobs): apply the queue's migrations (QueueSchema.migrate) first"
      )

  /** The database's queue lacks `missing`, migrations of this version of weir that its statements
    * need ([[QueueSchema.missing]]); [[QueueSchema.migrate]] applies them.
    */
  final case class MissingMigrations(target: String, missing: List[String])
      extends QueueError(
        s"the queue on $target lacks migration(s) ${missing.mkString(", ")} of this version of weir: apply them (QueueSchema.migrate) first"
      )
