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
object Maintenance:

  /** How many expired leases of each outcome one call ended. */
  final case class Reaped(available: Int, discarded: Int)

  private val reapSql =
    """WITH reaped AS (
      |  UPDATE weir.jobs j
      |     SET state = CASE WHEN j.attempt >= j.max_attempts THEN 'discarded' ELSE 'available' END,
      |         finished_at = CASE WHEN j.attempt >= j.max_attempts THEN now() END,
      |         errors = j.errors + 1,
      |         last_error = 'lease expired (worker ' || coalesce(j.worker, '?') || ')',
      |         lease_until = NULL, worker = NULL
      |    FROM (SELECT id FROM weir.jobs
      |           WHERE state = 'running' AND lease_until < now()
      |           ORDER BY lease_until LIMIT ? FOR UPDATE SKIP LOCKED) expired
      |   WHERE j.id = expired.id AND j.state = 'running' AND j.lease_until < now()
      |  RETURNING j.state)
      |SELECT count(*) FILTER (WHERE state = 'available'), count(*) FILTER (WHERE state = 'discarded')
      |  FROM reaped""".stripMargin

  /** Ends up to `limit` expired leases (see [[Maintenance]]). */
  def reap(c: Connection, limit: Int): Reaped =
    Jdbc.prepared(c, reapSql) { s =>
      s.setInt(1, limit)
      Jdbc.rows(s)(r => Reaped(r.getInt(1), r.getInt(2))).head
    }

  private def sweepSql(archive: Boolean) =
    val gone =
      """gone AS (
        |  DELETE FROM weir.jobs WHERE id IN (
        |    SELECT id FROM weir.jobs
        |     WHERE state IN ('completed', 'cancelled')
        |       AND finished_at < now() - ? * interval '1 millisecond'
        |     ORDER BY finished_at LIMIT ? FOR UPDATE SKIP LOCKED)
        |  RETURNING *)""".stripMargin
    if archive then
      s"WITH $gone, moved AS (INSERT INTO weir.jobs_archive SELECT * FROM gone RETURNING 1) SELECT count(*) FROM moved"
    else s"WITH $gone SELECT count(*) FROM gone"

  /** Removes finished jobs older than `retention`, `batch` per statement until none is left (each
    * batch commits on its own); how many in all.
    */
  def sweep(c: Connection, retention: FiniteDuration, batch: Int, archive: Boolean): Long =
    val sql = sweepSql(archive)
    var total = 0L
    var last = batch
    while last >= batch do
      last = Jdbc.prepared(c, sql) { s =>
        s.setLong(1, retention.toMillis)
        s.setInt(2, batch)
        Jdbc.rows(s)(_.getInt(1)).head
      }
      total += last
    total
