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

  /** The database has no queue in `schema`: `<schema>.jobs` does not exist ([[QueueSchema.migrate]]
    * creates it).
    */
  final case class NoQueue(target: String, schema: String = QueueSchemaName.default.name)
      extends QueueError(
        s"$target has no queue yet (no table $schema.jobs): apply the queue's migrations (QueueSchema.migrate) first"
      )

  /** The database's queue lacks `missing`, migrations of this version of weir that its statements
    * need ([[QueueSchema.missing]]); [[QueueSchema.migrate]] applies them.
    */
  final case class MissingMigrations(target: String, missing: List[String])
      extends QueueError(
        s"the queue on $target lacks migration(s) ${missing.mkString(", ")} of this version of weir: apply them (QueueSchema.migrate) first"
      )

  /** The server refused to renew the leases of the jobs a worker held (it answered with errors: a
    * statement timeout, a privilege missing) for `lease`, the lease's length: the jobs may be
    * claimed again by another worker, so it stopped claiming, interrupted its handlers and ended
    * its run. `cause` is the last error, on one line. (A server out of reach is waited for instead:
    * see [[Worker.run]].)
    */
  final case class LeasesLost(worker: String, lease: String, cause: String)
      extends QueueError(
        s"worker $worker could not renew its leases for $lease (the lease) and stopped, so as not to run jobs it may no longer hold; last error: $cause"
      )

  /** `queue` has never been seen: no job of it in `weir.jobs` and no row of it in `weir.queues` (a
    * typo, most likely). Pausing or resuming it does nothing.
    */
  final case class UnknownQueue(queue: String)
      extends QueueError(
        s"there is no queue '$queue': no job of it in the queue's table, never paused (check the name)"
      )

  /** `error`'s message on one line (the first line of it, or its class name): for an error message
    * that must be one line.
    */
  private[queue] def oneLine(error: Throwable): String =
    Option(error.getMessage)
      .flatMap(_.linesIterator.map(_.trim).find(_.nonEmpty))
      .getOrElse(error.getClass.getName)
