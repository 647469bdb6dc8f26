package weir.postgres.queue

import java.sql.Connection
import scala.concurrent.duration.FiniteDuration

/** The queue's upkeep, which every worker runs now and then (any number at once: each statement
  * locks the rows it takes with `FOR UPDATE SKIP LOCKED`, so two never take the same rows).
  *
  *   - The lease reaper: running jobs whose lease ended (their worker died or stalled) become
  *     available again at once, their attempt counted, or discarded when it was their last.
  *   - The retention sweep: completed and cancelled jobs older than the retention period are
  *     deleted (or moved to `weir.jobs_archive`), a batch at a time, so the table stays bounded.
  */
private[weir] object Maintenance:

  /** How many expired leases of each outcome one call ended. */
  final case class Reaped(available: Int, discarded: Int)

  // weir.reap_leases and weir.sweep_jobs (migration 0002): plans pinned to jobs_lease,
  // jobs_finished and the primary key (docs/adr/0006-durable-queue.md).
  private def reapSql(schema: QueueSchemaName) =
    s"SELECT available, discarded FROM $schema.reap_leases(?)"

  /** Ends up to `limit` expired leases (see [[Maintenance]]). */
  def reap(c: Connection, limit: Int, schema: QueueSchemaName = QueueSchemaName.default): Reaped =
    Jdbc.prepared(c, reapSql(schema)) { s =>
      s.setInt(1, limit)
      Jdbc.rows(s)(r => Reaped(r.getInt(1), r.getInt(2))).head
    }

  /** Removes finished jobs older than `retention`, `batch` per statement until none is left (each
    * batch commits on its own); how many in all.
    */
  def sweep(
      c: Connection,
      retention: FiniteDuration,
      batch: Int,
      archive: Boolean,
      schema: QueueSchemaName = QueueSchemaName.default
  ): Long =
    var total = 0L
    var last = batch
    while last >= batch do
      last = sweepBatch(c, retention, batch, archive, schema)
      total += last
    total

  /** One batch of [[sweep]]: up to `batch` finished jobs older than `retention` removed; how many.
    */
  def sweepBatch(
      c: Connection,
      retention: FiniteDuration,
      batch: Int,
      archive: Boolean,
      schema: QueueSchemaName = QueueSchemaName.default
  ): Int =
    Jdbc.prepared(c, s"SELECT $schema.sweep_jobs(?, ?, ?)") { s =>
      s.setLong(1, retention.toMillis)
      s.setInt(2, batch)
      s.setBoolean(3, archive)
      Jdbc.rows(s)(_.getInt(1)).head
    }
