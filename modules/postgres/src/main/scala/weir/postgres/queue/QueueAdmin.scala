package weir.postgres.queue

import cats.Functor
import cats.syntax.all.*
import weir.postgres.PgSession

/** Looking at and acting on the queue from outside a worker, on the caller's [[PgSession]] (in its
  * transaction, if it has one): statistics, cancelling jobs, pausing and resuming a queue, listing
  * and re-driving discarded ones. Driver errors are raised as `SQLException`s.
  */
object QueueAdmin:

  /** The queue at one moment (`queue` `None`: every queue). Ages and rates are from the server's
    * clock.
    */
  final case class Stats(
      queue: Option[String],
      byState: Map[JobState, Long],
      completedLastMinute: Long,
      oldestAvailableSeconds: Option[Double],
      expiredLeases: Long,
      rejected: Map[String, Long],
      table: TableSize
  ):
    def count(s: JobState): Long = byState.getOrElse(s, 0L)

  /** The jobs table on disk: heap, indexes (bytes), live and dead tuples (the statistics
    * collector's, updated a little after the fact).
    */
  final case class TableSize(tableBytes: Long, indexBytes: Long, liveTuples: Long, deadTuples: Long)

  /** A discarded job, as listed. */
  final case class Discarded(
      id: Long,
      queue: String,
      attempt: Int,
      errors: Int,
      lastError: Option[String]
  )

  /** The statistics of `queue` (every queue when `None`). */
  def stats[F[_]](
      session: PgSession[F],
      queue: Option[String],
      schema: QueueSchemaName = QueueSchemaName.default
  ): F[Stats] =
    session.withConnection { c =>
      val q = queue.orNull
      def one[A](sql: String)(read: java.sql.ResultSet => A): Vector[A] =
        Jdbc.prepared(c, sql) { s =>
          if sql.contains("?") then s.setString(1, q)
          Jdbc.rows(s)(read)
        }
      // weir.queue_stats (migration 0002): each part through its own partial index.
      val counted = Jdbc.prepared(c, s"SELECT * FROM $schema.queue_stats(?)") { s =>
        s.setString(1, q)
        Jdbc
          .rows(s) { r =>
            val states = List(
              JobState.Available -> r.getLong(1),
              JobState.Running -> r.getLong(2),
              JobState.Completed -> r.getLong(3),
              JobState.Discarded -> r.getLong(4),
              JobState.Cancelled -> r.getLong(5)
            )
            val oldest = Option(r.getObject(7)).map(_ => r.getDouble(7))
            (states.filter(_._2 > 0).toMap, r.getLong(6), oldest, r.getLong(8))
          }
          .head
      }
      val (states, recent, oldest, expired) = counted
      val rejected =
        one(s"SELECT kind, count(*) FROM $schema.job_rejections GROUP BY kind")(r =>
          r.getString(1) -> r.getLong(2)
        ).toMap
      val size = one(
        s"""SELECT pg_relation_size('$schema.jobs'), pg_indexes_size('$schema.jobs'),
          |       coalesce(n_live_tup, 0), coalesce(n_dead_tup, 0)
          |  FROM pg_stat_user_tables WHERE relid = '$schema.jobs'::regclass""".stripMargin
      )(r => TableSize(r.getLong(1), r.getLong(2), r.getLong(3), r.getLong(4))).head
      Stats(queue, states, recent, oldest, expired, rejected, size)
    }

  /** How many jobs of `queue` are due and waiting to be claimed (available, `run_at` passed): a
    * queue's depth, read through the claim index alone (cheap enough for every metrics scrape).
    */
  def depth[F[_]](
      session: PgSession[F],
      queue: String,
      schema: QueueSchemaName = QueueSchemaName.default
  ): F[Long] =
    session.withConnection { c =>
      Jdbc.prepared(
        c,
        s"SELECT count(*) FROM $schema.jobs WHERE state = 'available' AND queue = ? AND run_at <= now()"
      ) { s =>
        s.setString(1, queue)
        Jdbc.rows(s)(_.getLong(1)).head
      }
    }

  /** Cancels the jobs `ids` that have not finished (available, running or discarded); the ids
    * cancelled (a job that had finished, or no such id, is not among them). A cancelled job is
    * never claimed again. A running job's completion or failure is refused from then on (its
    * attempt's fence), and its worker interrupts its handler at its next lease renewal, within the
    * heartbeat interval ([[QueueSettings.heartbeat]], a third of the lease by default), publishing
    * a [[WorkerEvent.Cancelled]]; it writes nothing back for it. In the session's transaction, this
    * takes effect at its commit.
    */
  def cancel[F[_]](
      session: PgSession[F],
      ids: Seq[Long],
      schema: QueueSchemaName = QueueSchemaName.default
  ): F[Vector[Long]] =
    session.withConnection { c =>
      Jdbc.prepared(
        c,
        s"""UPDATE $schema.jobs SET state = 'cancelled', finished_at = now(), lease_until = NULL
          | WHERE id = ANY(?::bigint[]) AND state IN ('available', 'running', 'discarded')
          |RETURNING id""".stripMargin
      ) { s =>
        s.setArray(1, Jdbc.longs(c, ids))
        Jdbc.rows(s)(_.getLong(1))
      }
    }

  /** Pauses `queue`: from the commit on, no worker claims its jobs (the claim statement answers
    * nothing for a paused queue), so busy workers stop taking jobs at once and idle ones find none
    * at their next look; jobs already claimed or running go on and finish. Jobs may still be
    * enqueued. `Right(true)` when it was paused already (nothing changed), `Right(false)` when this
    * paused it; `Left(UnknownQueue)` when the queue has never been seen: no job of it in
    * `weir.jobs` and never paused (looking for a job of a name that has none reads the whole
    * table). Safe under concurrency: concurrent pauses and resumes of a queue are serialised on its
    * row.
    */
  def pause[F[_]: Functor](
      session: PgSession[F],
      queue: String,
      schema: QueueSchemaName = QueueSchemaName.default
  ): F[Either[QueueError.UnknownQueue, Boolean]] =
    toggle(session, queue, paused = true, schema)

  /** Resumes `queue` (see [[pause]]): workers claim its jobs again, idle ones woken at the commit
    * by a notification on [[Enqueue.channel]] (or, if it is lost, within their poll interval).
    * `Right(true)` when it was paused, `Right(false)` when it was not (nothing changed but the
    * notification); `Left(UnknownQueue)` as for [[pause]].
    */
  def resume[F[_]: Functor](
      session: PgSession[F],
      queue: String,
      schema: QueueSchemaName = QueueSchemaName.default
  ): F[Either[QueueError.UnknownQueue, Boolean]] =
    toggle(session, queue, paused = false, schema)

  private def toggle[F[_]: Functor](
      session: PgSession[F],
      queue: String,
      paused: Boolean,
      schema: QueueSchemaName
  ): F[Either[QueueError.UnknownQueue, Boolean]] =
    session
      .withConnection { c =>
        Jdbc.prepared(c, s"SELECT $schema.pause_queue(?, ?)") { s =>
          s.setString(1, queue)
          s.setBoolean(2, paused)
          Jdbc.rows(s)(r => Option(r.getObject(1)).map(_ => r.getBoolean(1))).head
        }
      }
      .map(_.toRight(QueueError.UnknownQueue(queue)))

  /** The paused queues and since when (the server's clock), by name. */
  def paused[F[_]](session: PgSession[F]): F[Vector[(String, java.time.Instant)]] =
    paused(session, QueueSchemaName.default)

  /** [[paused]] in the queue of `schema`. */
  def paused[F[_]](
      session: PgSession[F],
      schema: QueueSchemaName
  ): F[Vector[(String, java.time.Instant)]] =
    session.withConnection { c =>
      Jdbc.prepared(
        c,
        s"SELECT name, paused_at FROM $schema.queues WHERE paused_at IS NOT NULL ORDER BY name"
      )(s => Jdbc.rows(s)(r => r.getString(1) -> r.getTimestamp(2).toInstant))
    }

  /** Discarded jobs of `queue` (every queue when `None`), oldest first, at most `limit`. */
  def discarded[F[_]](
      session: PgSession[F],
      queue: Option[String],
      limit: Int,
      schema: QueueSchemaName = QueueSchemaName.default
  ): F[Vector[Discarded]] =
    session.withConnection { c =>
      Jdbc.prepared(
        c,
        s"""SELECT id, queue, attempt, errors, last_error FROM $schema.jobs
          | WHERE state = 'discarded' AND (?::text IS NULL OR queue = ?::text)
          | ORDER BY id LIMIT ?""".stripMargin
      ) { s =>
        s.setString(1, queue.orNull)
        s.setString(2, queue.orNull)
        s.setInt(3, limit)
        Jdbc.rows(s)(r =>
          Discarded(r.getLong(1), r.getString(2), r.getInt(3), r.getInt(4), Option(r.getString(5)))
        )
      }
    }

  /** Makes discarded jobs available again at once with `attempts` more attempts (their attempt
    * count goes on from where it stopped, so no attempt number is ever reused): the ids given, or
    * every discarded job of `queue` when `ids` is empty. How many were re-driven.
    */
  def retryDiscarded[F[_]](
      session: PgSession[F],
      queue: Option[String],
      ids: Seq[Long],
      attempts: Int,
      schema: QueueSchemaName = QueueSchemaName.default
  ): F[Int] =
    session.withConnection { c =>
      Jdbc.prepared(
        c,
        s"""UPDATE $schema.jobs
          |   SET state = 'available', run_at = now(), finished_at = NULL,
          |       max_attempts = attempt + ?
          | WHERE state = 'discarded' AND (?::text IS NULL OR queue = ?::text)
          |   AND (cardinality(?::bigint[]) = 0 OR id = ANY(?::bigint[]))""".stripMargin
      ) { s =>
        s.setInt(1, math.max(1, attempts))
        s.setString(2, queue.orNull)
        s.setString(3, queue.orNull)
        s.setArray(4, Jdbc.longs(c, ids))
        s.setArray(5, Jdbc.longs(c, ids))
        s.executeUpdate()
      }
    }
