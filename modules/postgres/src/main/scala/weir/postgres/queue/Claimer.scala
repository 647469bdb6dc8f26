package weir.postgres.queue

import java.sql.{Connection, Timestamp, Types}
import java.time.Instant
import scala.concurrent.duration.FiniteDuration

/** Claiming jobs: one statement takes up to `n` available jobs of a queue whose time has come, in
  * (priority, run_at, id) order, skipping rows another worker has locked (`FOR UPDATE SKIP
  * LOCKED`), and marks them running under this worker with their attempt counted and a lease until
  * now + `lease` (the server's clock).
  *
  * '''Concurrency.''' Any number of workers may claim at once: a row is locked by the first
  * statement that reaches it and skipped by the others, so no job is ever claimed twice under the
  * same attempt. '''Errors.''' The statement is safe to repeat after a lost connection: jobs
  * claimed by a statement whose answer was lost stay running under a lease that expires, then
  * return.
  */
private[weir] object Claimer:

  /** The function every claim calls (migration 0002); [[QueueProbe]] finds claims running on the
    * server by it.
    */
  private[queue] def function(schema: QueueSchemaName): String = s"$schema.claim_jobs"

  // weir.claim_jobs: the rows are chosen through jobs_claim and changed through the primary key,
  // whatever the statistics say (docs/adr/0006-durable-queue.md).
  private def sql(schema: QueueSchemaName) =
    s"""SELECT id, queue, payload, priority, run_at, attempt, max_attempts, kind, timeout_ms
       |  FROM ${function(schema)}(?, ?, ?, ?, ?, ?, ?)""".stripMargin

  /** A place in claiming order: (priority, run_at, id). */
  final case class Position(priority: Int, runAt: Instant, id: Long)

  object Position:
    /** Where `job` is in claiming order. */
    def of(job: Job): Position = Position(job.priority, job.runAt, job.id)

  /** Claims up to `n` jobs of `queue` for `worker` (see [[Claimer]]), in claiming order; only jobs
    * after `after` in that order when it is given ([[ClaimCursor]]).
    */
  def claim(
      c: Connection,
      queue: String,
      n: Int,
      lease: FiniteDuration,
      worker: String,
      after: Option[Position] = None,
      schema: QueueSchemaName = QueueSchemaName.default
  ): Vector[Job] =
    Jdbc.prepared(c, sql(schema)) { s =>
      s.setString(1, queue)
      s.setInt(2, n)
      s.setLong(3, lease.toMillis)
      s.setString(4, worker)
      after match
        case Some(p) =>
          s.setShort(5, p.priority.toShort)
          s.setTimestamp(6, Timestamp.from(p.runAt))
          s.setLong(7, p.id)
        case None =>
          s.setNull(5, Types.SMALLINT)
          s.setNull(6, Types.TIMESTAMP_WITH_TIMEZONE)
          s.setNull(7, Types.BIGINT)
      Jdbc.rows(s)(job).sortBy(j => (j.priority, j.runAt, j.id))
    }

  // A row of `id, queue, payload, priority, run_at, attempt, max_attempts, kind, timeout_ms`.
  private def job(r: java.sql.ResultSet): Job =
    Job(
      r.getLong(1),
      r.getString(2),
      r.getString(3),
      r.getInt(4),
      r.getTimestamp(5).toInstant,
      r.getInt(6),
      r.getInt(7),
      r.getString(8),
      Option(r.getObject(9)).map(_ => FiniteDuration(r.getLong(9), "ms"))
    )

  /** The available jobs of `queue` (due or not), only those of `kind` when given, in claiming
    * order, with the attempt their next claim would run under: what [[QueueTestKit.enqueued]]
    * lists. Reads through the claim index; locks nothing.
    */
  def waiting(
      c: Connection,
      queue: String,
      kind: Option[String],
      schema: QueueSchemaName = QueueSchemaName.default
  ): Vector[Job] =
    Jdbc.prepared(
      c,
      s"""SELECT id, queue, payload, priority, run_at, attempt + 1, max_attempts, kind, timeout_ms
        |  FROM $schema.jobs
        | WHERE state = 'available' AND queue = ? AND (?::text IS NULL OR kind = ?)
        | ORDER BY priority, run_at, id""".stripMargin
    ) { s =>
      s.setString(1, queue)
      s.setString(2, kind.orNull)
      s.setString(3, kind.orNull)
      Jdbc.rows(s)(job)
    }

  /** True while `queue` has a job available (due or scheduled) or running. */
  def pending(
      c: Connection,
      queue: String,
      schema: QueueSchemaName = QueueSchemaName.default
  ): Boolean =
    Jdbc.prepared(c, s"SELECT $schema.queue_pending(?)") { s =>
      s.setString(1, queue)
      Jdbc.rows(s)(_.getBoolean(1)).head
    }
