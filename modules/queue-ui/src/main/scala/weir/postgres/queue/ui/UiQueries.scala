package weir.postgres.queue.ui

import java.sql.{Connection, ResultSet}
import weir.postgres.PgSession
import weir.postgres.queue.{Jdbc, QueueSchemaName}
import weir.postgres.queue.ui.UiData.*

/** The statements behind the pages, each read through an index of `weir.jobs` (the comments name
  * it), so that a page costs a few index scans whatever the size of the table: live jobs through
  * the partial indexes of live states, the chart through `jobs_finished` and `jobs_failed`
  * (migration 0009), lists by keyset on the primary key (`id < last`, never OFFSET). Every call
  * runs on the caller's session; driver errors are raised as `SQLException`s.
  */
private[ui] final class UiQueries[F[_]](schema: QueueSchemaName):
  private val s = schema.name

  private def ts(r: ResultSet, i: Int) = Option(r.getTimestamp(i)).map(_.toInstant)

  // `f` on the session's connection in a transaction of its own with PostgreSQL's JIT off
  // (`SET LOCAL`: a connection borrowed from the application's pool keeps its settings). The
  // overview's statement over 10 M jobs is estimated past jit_above_cost, and compiling it took
  // 106 ms of its 150-200 ms; without JIT it runs in 42 ms (bench/queue/ui.sh's table). A
  // connection already in a transaction is used as it is, JIT and all.
  private def reading[A](db: PgSession[F])(f: Connection => A): F[A] = db.withConnection { c =>
    if !c.getAutoCommit then f(c)
    else
      c.setAutoCommit(false)
      try
        val st = c.createStatement()
        try st.execute("SET LOCAL jit = off")
        finally st.close()
        val a = f(c)
        c.commit()
        a
      catch
        case e: Throwable =>
          c.rollback()
          throw e
      finally c.setAutoCommit(true)
  }

  /** Every queue with live jobs, discarded ones, a pause on record or activity in the last
    * `minutes`. Available jobs through `jobs_claim`: the queues found by a loose index scan (one
    * probe per queue), then at most [[UiData.CountCap]] + 1 entries read per queue, so that a
    * backlog of millions costs what ten thousand do (10 M jobs with 1 M available took 406 ms at
    * p50 when every available job was counted, `bench/queue/ui.sh`); past the cap, `due` and the
    * oldest due come from those first entries in claim order (priority, then run_at). Running jobs
    * and workers from the rows of `weir.workers` (migration 0011) that beat in the last minute: the
    * jobs each worker held at its latest heartbeat, by queue, and the queues it serves (counting
    * the running jobs' own rows read a heap page for each: 167 ms for 10 000 of them, cold).
    * Discarded jobs through `jobs_discarded`, completions through `jobs_finished`, failures through
    * `jobs_failed`.
    */
  def queues(db: PgSession[F], minutes: Int): F[Vector[QueueRow]] = reading(db) { c =>
    val window = s"now() - $minutes * interval '1 minute'"
    val sql =
      s"""WITH RECURSIVE aq AS (
         |  (SELECT queue FROM $s.jobs WHERE state = 'available' ORDER BY queue LIMIT 1)
         |  UNION ALL
         |  SELECT (SELECT j.queue FROM $s.jobs j WHERE j.state = 'available' AND j.queue > aq.queue
         |           ORDER BY j.queue LIMIT 1)
         |    FROM aq WHERE aq.queue IS NOT NULL),
         |avail AS (
         |  SELECT aq.queue, a.n, a.due, a.oldest FROM aq CROSS JOIN LATERAL (
         |    SELECT count(*) AS n, count(*) FILTER (WHERE run_at <= now()) AS due,
         |           min(run_at) FILTER (WHERE run_at <= now()) AS oldest
         |      FROM (SELECT run_at FROM $s.jobs
         |             WHERE state = 'available' AND queue = aq.queue
         |             ORDER BY priority, run_at, id LIMIT ${CountCap + 1}) first) a
         |   WHERE aq.queue IS NOT NULL),
         |live AS (SELECT queues, holding FROM $s.workers WHERE beat_at > now() - interval '1 minute'),
         |run AS (SELECT h.key AS queue, sum(h.value::bigint) AS n
         |          FROM live, jsonb_each_text(live.holding) AS h GROUP BY 1),
         |wk AS (SELECT q AS queue, count(*) AS w FROM live, unnest(live.queues) AS q GROUP BY 1),
         |disc AS (SELECT queue, count(*) AS n FROM $s.jobs WHERE state = 'discarded' GROUP BY queue),
         |done AS (SELECT queue, count(*) AS n FROM $s.jobs
         |          WHERE state IN ('completed', 'cancelled') AND state = 'completed'
         |            AND finished_at > $window GROUP BY queue),
         |fail AS (SELECT queue, count(*) AS n FROM $s.jobs
         |          WHERE failed_at IS NOT NULL AND failed_at > $window GROUP BY queue),
         |names AS (SELECT queue FROM avail UNION SELECT queue FROM run UNION SELECT queue FROM wk
         |          UNION SELECT queue FROM disc
         |          UNION SELECT queue FROM done UNION SELECT queue FROM fail
         |          UNION SELECT name FROM $s.queues)
         |SELECT n.queue, coalesce(a.n, 0), coalesce(a.due, 0), extract(epoch FROM now() - a.oldest),
         |       coalesce(r.n, 0), coalesce(k.w, 0), coalesce(d.n, 0), coalesce(o.n, 0),
         |       coalesce(f.n, 0), q.paused_at
         |  FROM names n LEFT JOIN avail a USING (queue) LEFT JOIN run r USING (queue)
         |  LEFT JOIN wk k USING (queue)
         |  LEFT JOIN disc d USING (queue) LEFT JOIN done o USING (queue)
         |  LEFT JOIN fail f USING (queue) LEFT JOIN $s.queues q ON q.name = n.queue
         | ORDER BY n.queue""".stripMargin
    Jdbc.prepared(c, sql) { st =>
      Jdbc.rows(st) { r =>
        QueueRow(
          r.getString(1),
          r.getLong(2),
          r.getLong(3),
          Option(r.getObject(4)).map(_ => r.getDouble(4)),
          r.getLong(5),
          r.getLong(6),
          r.getLong(7),
          r.getLong(8),
          r.getLong(9),
          ts(r, 10)
        )
      }
    }
  }

  /** Completions (through `jobs_finished`) and failed attempts (through `jobs_failed`: a job's
    * latest failure only, as `failed_at` keeps) of `queue` (every queue when `None`) over the last
    * `minutes`, in 60 buckets of `minutes` seconds each.
    */
  def chart(db: PgSession[F], queue: Option[String], minutes: Int): F[Chart] = reading(db) { c =>
    val bucket = minutes
    val filter = if queue.isDefined then "AND queue = ?" else ""
    val window = s"now() - $minutes * interval '1 minute'"
    val sql =
      s"""SELECT floor(extract(epoch FROM now()) / $bucket)::bigint, b, sum(c), sum(f) FROM (
           |  SELECT floor(extract(epoch FROM finished_at) / $bucket)::bigint AS b, count(*) AS c, 0 AS f
           |    FROM $s.jobs WHERE state IN ('completed', 'cancelled') AND state = 'completed'
           |     AND finished_at > $window $filter GROUP BY 1
           |  UNION ALL
           |  SELECT floor(extract(epoch FROM failed_at) / $bucket)::bigint, 0, count(*)
           |    FROM $s.jobs WHERE failed_at IS NOT NULL AND failed_at > $window $filter GROUP BY 1
           |) x GROUP BY b
           |UNION ALL SELECT floor(extract(epoch FROM now()) / $bucket)::bigint, NULL, 0, 0""".stripMargin
    val rows = Jdbc.prepared(c, sql) { st =>
      queue.foreach { q =>
        st.setString(1, q); st.setString(2, q)
      }
      Jdbc.rows(st)(r =>
        (r.getLong(1), Option(r.getObject(2)).map(_ => r.getLong(2)), r.getLong(3), r.getLong(4))
      )
    }
    val last = rows.head._1
    val byBucket = rows.collect { case (_, Some(b), done, failed) => b -> (done, failed) }.toMap
    val range = (last - 59 to last).toVector
    Chart(
      bucket,
      range.map(b => byBucket.get(b).fold(0L)(_._1)),
      range.map(b => byBucket.get(b).fold(0L)(_._2))
    )
  }

  /** Up to `limit` jobs with ids below `before` (all when `None`), newest first, matching the
    * filters given. Keyset on the primary key, walked backwards; a state filter is written as a
    * literal (from [[UiData.states]]), so that the partial index made for it can serve it
    * (`jobs_discarded` for discarded jobs of a queue, `jobs_lease` for running ones).
    */
  def jobs(
      db: PgSession[F],
      queue: Option[String],
      state: Option[String],
      kind: Option[String],
      before: Option[Long],
      limit: Int
  ): F[Vector[JobRow]] = reading(db) { c =>
    val stateSql = state.filter(states.contains).map {
      case "running" => "lease_until IS NOT NULL AND state = 'running'"
      case other     => s"state = '$other'"
    }
    val where = List(
      queue.map(_ => "queue = ?"),
      stateSql,
      kind.map(_ => "kind = ?"),
      before.map(_ => "id < ?")
    ).flatten
    val sql =
      s"""SELECT id, queue, kind, state, attempt, max_attempts, run_at, errors, left(last_error, 300),
         |       left(payload, 160)
         |  FROM $s.jobs ${if where.isEmpty then "" else where.mkString("WHERE ", " AND ", "")}
         | ORDER BY id DESC LIMIT ?""".stripMargin
    Jdbc.prepared(c, sql) { st =>
      var i = 0
      def next() =
        i += 1; i
      queue.foreach(st.setString(next(), _))
      kind.foreach(st.setString(next(), _))
      before.foreach(st.setLong(next(), _))
      st.setInt(next(), limit)
      Jdbc.rows(st) { r =>
        JobRow(
          r.getLong(1),
          r.getString(2),
          r.getString(3),
          r.getString(4),
          r.getInt(5),
          r.getInt(6),
          r.getTimestamp(7).toInstant,
          r.getInt(8),
          Option(r.getString(9)),
          r.getString(10)
        )
      }
    }
  }

  /** One job by its primary key, with its errors newest first (its `error_history`, read on the
    * same row).
    */
  def job(db: PgSession[F], id: Long): F[Option[JobDetail]] = reading(db) { c =>
    val sql =
      s"""SELECT id, queue, kind, state, priority, attempt, max_attempts, errors, last_error, failed_at,
         |       worker, unique_key, timeout_ms, lease_until, created_at, run_at, attempted_at,
         |       finished_at, payload
         |  FROM $s.jobs WHERE id = ?""".stripMargin
    Jdbc.prepared(c, sql) { st =>
      st.setLong(1, id)
      Jdbc
        .rows(st) { r =>
          JobDetail(
            r.getLong(1),
            r.getString(2),
            r.getString(3),
            r.getString(4),
            r.getInt(5),
            r.getInt(6),
            r.getInt(7),
            r.getInt(8),
            Option(r.getString(9)),
            ts(r, 10),
            Option(r.getString(11)),
            Option(r.getString(12)),
            Option(r.getObject(13)).map(_ => r.getLong(13)),
            ts(r, 14),
            r.getTimestamp(15).toInstant,
            r.getTimestamp(16).toInstant,
            ts(r, 17),
            ts(r, 18),
            r.getString(19)
          )
        }
        .headOption
        .map(_.copy(history = history(c, id)))
    }
  }

  private def history(c: Connection, id: Long): Vector[ErrorEntry] =
    val sql =
      s"""SELECT (e->>'attempt')::int, (e->>'at')::timestamptz, e->>'worker', e->>'error'
         |  FROM $s.jobs, jsonb_array_elements(error_history) WITH ORDINALITY AS h(e, n)
         | WHERE id = ? ORDER BY n DESC""".stripMargin
    Jdbc.prepared(c, sql) { st =>
      st.setLong(1, id)
      Jdbc.rows(st)(r =>
        ErrorEntry(r.getInt(1), r.getTimestamp(2).toInstant, Option(r.getString(3)), r.getString(4))
      )
    }

  /** The workers with a row in `weir.workers` (at most 500, by id), and any other worker holding
    * jobs now (through `jobs_lease`) or that completed some in the last minute (through
    * `jobs_finished`): a worker of a version before migration 0011 writes no row.
    */
  def workers(db: PgSession[F]): F[Vector[WorkerRow]] = reading(db) { c =>
    val rows = Jdbc
      .prepared(
        c,
        s"""SELECT id, queues, started_at, beat_at, completed, failed
         |  FROM $s.workers ORDER BY id LIMIT 500""".stripMargin
      ) { st =>
        Jdbc.rows(st) { r =>
          val qs = r.getArray(2).getArray.asInstanceOf[Array[String]].toVector
          r.getString(1) -> (qs, ts(r, 3), ts(r, 4), r.getLong(5), r.getLong(6))
        }
      }
      .toMap
    val holding = Jdbc
      .prepared(
        c,
        s"""SELECT worker, count(*), (array_agg(id ORDER BY id))[1:20], array_agg(DISTINCT queue),
         |       min(attempted_at)
         |  FROM $s.jobs WHERE lease_until IS NOT NULL AND worker IS NOT NULL GROUP BY worker""".stripMargin
      ) { st =>
        Jdbc.rows(st) { r =>
          val ids =
            r.getArray(3).getArray.asInstanceOf[Array[java.lang.Long]].toVector.map(_.longValue)
          val qs = r.getArray(4).getArray.asInstanceOf[Array[String]].toVector
          r.getString(1) -> (r.getLong(2), ids, qs, ts(r, 5))
        }
      }
      .toMap
    val done = Jdbc
      .prepared(
        c,
        s"""SELECT worker, count(*) FROM $s.jobs
         | WHERE state IN ('completed', 'cancelled') AND state = 'completed'
         |   AND finished_at > now() - interval '1 minute' AND worker IS NOT NULL
         | GROUP BY worker""".stripMargin
      )(st => Jdbc.rows(st)(r => r.getString(1) -> r.getLong(2)))
      .toMap
    (rows.keySet ++ holding.keySet ++ done.keySet).toVector.sorted.map { w =>
      val row = rows.get(w)
      val h = holding.get(w)
      WorkerRow(
        w,
        row.map(_._1).orElse(h.map(_._3)).getOrElse(Vector.empty),
        row.flatMap(_._2),
        row.flatMap(_._3),
        h.fold(0L)(_._1),
        h.fold(Vector.empty[Long])(_._2),
        h.flatMap(_._4),
        done.getOrElse(w, 0L),
        row.map(_._4),
        row.map(_._5)
      )
    }
  }

  /** Every schedule (at most 500), by name. */
  def schedules(db: PgSession[F]): F[Vector[ScheduleRow]] = reading(db) { c =>
    Jdbc.prepared(
      c,
      s"""SELECT name, queue, kind, every_ms, cron, last_period, updated_at, left(payload, 200)
         |  FROM $s.schedules ORDER BY name LIMIT 500""".stripMargin
    ) { st =>
      Jdbc.rows(st) { r =>
        ScheduleRow(
          r.getString(1),
          r.getString(2),
          r.getString(3),
          Option(r.getObject(4)).map(_ => r.getLong(4)),
          Option(r.getString(5)),
          ts(r, 6),
          r.getTimestamp(7).toInstant,
          r.getString(8)
        )
      }
    }
  }
