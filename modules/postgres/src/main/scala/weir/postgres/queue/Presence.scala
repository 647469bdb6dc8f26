package weir.postgres.queue

import java.sql.Connection

/** A worker's row in `weir.workers` (migration 0011): what `weir queue ui`'s workers page lists.
  * Written on the worker's upkeep connection ([[WorkerUpkeep.presence]]), never on the claim or
  * completion path. Each call is one statement in its own transaction; driver errors are raised as
  * `SQLException`s.
  */
private[queue] object Presence:

  /** What a beat writes: the worker's queues, the jobs it holds now by queue, its totals so far. */
  final case class Beat(
      queues: List[String],
      holding: Map[String, Int],
      claimed: Long,
      completed: Long,
      failed: Long
  )

  object Beat:
    def of(queues: List[String], holding: Map[String, Int], counts: Worker.Counts): Beat =
      val w = counts.written
      Beat(
        queues,
        holding,
        counts.claimedJobs,
        w.completed.toLong,
        (w.retried + w.discarded).toLong
      )

  /** Inserts the worker's row (its `started_at` is then now) or updates it, its `beat_at` now. */
  def beat(c: Connection, worker: String, b: Beat, schema: QueueSchemaName): Unit =
    val sql =
      s"""INSERT INTO $schema.workers AS w (id, queues, holding, claimed, completed, failed)
         |VALUES (?, ?, (SELECT coalesce(jsonb_object_agg(q, n), '{}') FROM unnest(?::text[], ?::int[]) AS h(q, n)),
         |        ?, ?, ?)
         |ON CONFLICT (id) DO UPDATE
         |  SET beat_at = now(), queues = excluded.queues, holding = excluded.holding,
         |      claimed = excluded.claimed, completed = excluded.completed, failed = excluded.failed""".stripMargin
    Jdbc.prepared(c, sql) { s =>
      s.setString(1, worker)
      s.setArray(2, c.createArrayOf("text", b.queues.toArray[AnyRef]))
      val (qs, ns) = b.holding.toVector.unzip
      s.setArray(3, c.createArrayOf("text", qs.toArray[AnyRef]))
      s.setArray(4, c.createArrayOf("int4", ns.map(Int.box).toArray[AnyRef]))
      s.setLong(5, b.claimed)
      s.setLong(6, b.completed)
      s.setLong(7, b.failed)
      s.executeUpdate(): Unit
    }

  /** Deletes the worker's row (it has stopped). */
  def gone(c: Connection, worker: String, schema: QueueSchemaName): Unit =
    Jdbc.prepared(c, s"DELETE FROM $schema.workers WHERE id = ?") { s =>
      s.setString(1, worker)
      s.executeUpdate(): Unit
    }

  /** Deletes the rows of workers whose last beat is older than a day (killed, never stopped): how
    * many.
    */
  def prune(c: Connection, schema: QueueSchemaName): Int =
    Jdbc.prepared(c, s"DELETE FROM $schema.workers WHERE beat_at < now() - interval '1 day'")(
      _.executeUpdate()
    )
