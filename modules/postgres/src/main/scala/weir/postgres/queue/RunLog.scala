package weir.postgres.queue

import cats.effect.{Async, Resource}
import weir.engine.RetryPolicy
import weir.postgres.PgTarget

/** The run log: one row in `weir.job_runs` (migration 0003) for each attempt a worker started, so
  * that a crash test can count, in the database, the runs beyond one per job and the completions
  * whose attempt never ran ([[QueueProbe]] reads them). A worker writes it only when asked to: it
  * costs a round trip per job.
  *
  * '''Concurrency.''' Writes go through one [[QueueDb]] connection of their own, one at a time.
  * '''Errors.''' A write whose connection is lost is made again on a new connection (see
  * [[QueueDb.use]]): a run may then be recorded twice, never lost. Any other error is raised.
  */
private[weir] final class RunLog[F[_]] private (
    db: QueueDb[F],
    worker: String,
    schema: QueueSchemaName
):

  /** Records that an attempt of `job` started, under this log's worker. */
  def started(job: Job): F[Unit] =
    db.use(c =>
      Jdbc.prepared(c, RunLog.insertSql(schema)) { s =>
        s.setLong(1, job.id)
        s.setInt(2, job.attempt)
        s.setString(3, worker)
        s.executeUpdate(): Unit
      }
    )

private[weir] object RunLog:

  private def insertSql(schema: QueueSchemaName) =
    s"INSERT INTO $schema.job_runs (job_id, attempt, worker) VALUES (?, ?, ?)"

  /** A log on `target` (in `schema`) that records runs under `worker` (what [[QueueProbe]] later
    * matches runs by), connecting at its first write as [[Worker.applicationName]] `runs`,
    * reconnecting with `reconnect`; the connection is closed on release.
    */
  def resource[F[_]: Async](
      target: PgTarget,
      worker: String,
      reconnect: RetryPolicy,
      schema: QueueSchemaName = QueueSchemaName.default
  ): Resource[F, RunLog[F]] =
    QueueDb
      .resource[F](target, Worker.applicationName("runs"), reconnect)
      .map(new RunLog(_, worker, schema))
