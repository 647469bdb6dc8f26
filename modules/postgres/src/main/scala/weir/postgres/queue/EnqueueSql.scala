package weir.postgres.queue

import java.nio.charset.StandardCharsets.UTF_8
import java.sql.Connection
import org.postgresql.PGConnection
import scala.concurrent.duration.FiniteDuration

/** The statements that put jobs in the queue, on a JDBC connection in whatever transaction it is
  * in: one implementation for [[Enqueue]] (weir's own session) and [[JdbcEnqueue]] (the
  * application's connection or pool). Blocking; the caller picks the thread.
  */
private[queue] object EnqueueSql:

  /** The channel of the queue in `weir`; the payload of a notification is the queue's name. */
  val channel: String = QueueSchemaName.default.channel

  /** Inserts `job`, notifying its queue: [[Enqueued.New]] with its id, or [[Enqueued.Existing]]
    * with the id of the job holding its unique key (an unfinished job, or any job of the same
    * period: [[NewJob.withUniqueKey]]). A job with a key goes through the SQL function
    * `weir.enqueue_outcome` (migration 0008), which waits for a concurrent insert of the same key
    * to commit or roll back, and notifies only when it inserts.
    */
  def one(c: Connection, job: NewJob, schema: QueueSchemaName): Enqueued =
    job.uniqueKey match
      case None => Enqueued.New(notifying(c, Seq(job), schema)(insert(c, Seq(job), schema).head))
      case Some(key) => keyed(c, job, key, schema)

  private def outcomeSql(schema: QueueSchemaName) =
    s"""SELECT job_id, inserted
      |  FROM $schema.enqueue_outcome(?, ?, ?, ?, coalesce(?::timestamptz, now()), ?, ?,
      |                            ?::bigint * interval '1 millisecond',
      |                            ?::bigint * interval '1 millisecond')""".stripMargin

  private def keyed(c: Connection, job: NewJob, key: String, schema: QueueSchemaName): Enqueued =
    Jdbc.prepared(c, outcomeSql(schema)) { s =>
      s.setString(1, job.queue)
      s.setString(2, job.payload)
      s.setString(3, job.kind)
      s.setInt(4, job.priority)
      s.setString(5, job.runAt.map(_.toString).orNull)
      s.setInt(6, job.maxAttempts)
      s.setString(7, key)
      millis(s, 8, job.timeout)
      millis(s, 9, job.uniquePeriod)
      Jdbc
        .rows(s)(r =>
          if r.getBoolean(2) then Enqueued.New(r.getLong(1)) else Enqueued.Existing(r.getLong(1))
        )
        .head
    }

  /** Inserts `jobs` (COPY when none has a unique key), notifying each queue once; how many. */
  def many(c: Connection, jobs: Seq[NewJob], schema: QueueSchemaName): Long =
    notifying(c, jobs, schema)(write(c, jobs, schema))

  private def write(c: Connection, jobs: Seq[NewJob], schema: QueueSchemaName): Long =
    if jobs.isEmpty then 0L
    else if jobs.exists(_.uniqueKey.isDefined) then insert(c, jobs, schema).size.toLong
    else
      val (scheduled, now) = jobs.partition(_.runAt.isDefined)
      copy(c, now, withRunAt = false, schema) + copy(c, scheduled, withRunAt = true, schema)

  private def notifying[A](c: Connection, jobs: Seq[NewJob], schema: QueueSchemaName)(
      write: => A
  ): A =
    val a = write
    jobs.map(_.queue).distinct.foreach { q =>
      Jdbc.prepared(c, "SELECT pg_notify(?, ?)") { s =>
        s.setString(1, schema.channel)
        s.setString(2, q)
        s.execute()
      }
    }
    a

  // Every unique index is an arbiter (ON CONFLICT without a target): jobs_unique (one unfinished
  // job per queue and key) and jobs_unique_period (one job per queue, key and period, migration
  // 0007). A period's bucket is computed by the server's clock (weir.period_start).
  private def insertSql(schema: QueueSchemaName) =
    s"""INSERT INTO $schema.jobs (queue, payload, priority, run_at, max_attempts, unique_key, kind,
      |                       timeout_ms, unique_period)
      |SELECT q, p, pr, coalesce(ra::timestamptz, now()), ma, uk, k, tm, $schema.period_start(now(), up)
      |  FROM unnest(?::text[], ?::text[], ?::smallint[], ?::text[], ?::integer[], ?::text[],
      |              ?::text[], ?::bigint[], ?::bigint[])
      |    AS t(q, p, pr, ra, ma, uk, k, tm, up)
      |ON CONFLICT DO NOTHING
      |RETURNING id""".stripMargin

  private def insert(c: Connection, jobs: Seq[NewJob], schema: QueueSchemaName): Vector[Long] =
    Jdbc.prepared(c, insertSql(schema)) { s =>
      s.setArray(1, Jdbc.texts(c, jobs.map(_.queue)))
      s.setArray(2, Jdbc.texts(c, jobs.map(_.payload)))
      s.setArray(
        3,
        c.createArrayOf(
          "smallint",
          jobs.map(j => java.lang.Short.valueOf(j.priority.toShort)).toArray
        )
      )
      s.setArray(4, Jdbc.texts(c, jobs.map(_.runAt.map(_.toString).orNull)))
      s.setArray(5, Jdbc.ints(c, jobs.map(_.maxAttempts)))
      s.setArray(6, Jdbc.texts(c, jobs.map(_.uniqueKey.orNull)))
      s.setArray(7, Jdbc.texts(c, jobs.map(_.kind)))
      s.setArray(8, millis(c, jobs.map(_.timeout)))
      s.setArray(9, millis(c, jobs.map(_.uniquePeriod)))
      Jdbc.rows(s)(_.getLong(1))
    }

  private def millis(s: java.sql.PreparedStatement, i: Int, d: Option[FiniteDuration]): Unit =
    d.fold(s.setNull(i, java.sql.Types.BIGINT))(d => s.setLong(i, d.toMillis))

  private def millis(c: Connection, ds: Seq[Option[FiniteDuration]]): java.sql.Array =
    c.createArrayOf("bigint", ds.map(_.fold(null)(d => java.lang.Long.valueOf(d.toMillis))).toArray)

  private def copy(
      c: Connection,
      jobs: Seq[NewJob],
      withRunAt: Boolean,
      schema: QueueSchemaName
  ): Long =
    if jobs.isEmpty then 0L
    else
      val columns =
        if withRunAt then "queue, payload, priority, max_attempts, kind, timeout_ms, run_at"
        else "queue, payload, priority, max_attempts, kind, timeout_ms"
      val in =
        c.unwrap(classOf[PGConnection])
          .getCopyAPI
          .copyIn(s"COPY $schema.jobs ($columns) FROM STDIN")
      try
        val buffer = new java.io.ByteArrayOutputStream(64 * 1024)
        def flush(): Unit =
          in.writeToCopy(buffer.toByteArray, 0, buffer.size)
          buffer.reset()
        val line = new java.lang.StringBuilder
        jobs.foreach { j =>
          line.setLength(0)
          escape(line, j.queue).append('\t')
          escape(line, j.payload).append('\t').append(j.priority).append('\t').append(j.maxAttempts)
          escape(line.append('\t'), j.kind).append('\t')
          j.timeout.fold(line.append("\\N"))(t => line.append(t.toMillis))
          j.runAt.foreach(at => line.append('\t').append(at.toString))
          line.append('\n')
          buffer.write(line.toString.getBytes(UTF_8))
          if buffer.size >= 64 * 1024 then flush()
        }
        if buffer.size > 0 then flush()
        in.endCopy()
      catch
        case e: Throwable =>
          if in.isActive then
            try in.cancelCopy()
            catch case _: Throwable => ()
          throw e

  // COPY's text format: backslash, tab, newline and carriage return are escaped.
  private def escape(out: java.lang.StringBuilder, s: String): java.lang.StringBuilder =
    var i = 0
    while i < s.length do
      s.charAt(i) match
        case '\\' => out.append("\\\\")
        case '\t' => out.append("\\t")
        case '\n' => out.append("\\n")
        case '\r' => out.append("\\r")
        case ch   => out.append(ch)
      i += 1
    out
