package weir.postgres.queue

import fs2.Stream
import java.nio.charset.StandardCharsets.UTF_8
import java.sql.Connection
import org.postgresql.PGConnection
import weir.postgres.PgSession

/** Putting jobs in the queue, on the caller's [[PgSession]].
  *
  * '''Transactions.''' Enqueueing joins whatever the session is in: in the caller's own transaction
  * (`session.transaction(on = true)`), the jobs appear when the caller commits, and not at all if
  * it rolls back (transactional enqueue); in autocommit, each call commits on its own.
  *
  * '''Wake-ups.''' Each call sends one notification per queue it wrote to (never one per job:
  * PostgreSQL takes an instance-wide lock for notifications at commit), delivered at commit to the
  * idle workers listening ([[Wake]]).
  *
  * '''Errors.''' Driver errors are raised as `SQLException`s; nothing is retried here (a retried
  * insert whose first answer was lost could insert twice). Calls on one session must not overlap.
  */
object Enqueue:

  /** The channel workers listen on; the payload of a notification is the queue's name. */
  val channel: String = "weir_jobs"

  /** Inserts `job`; its id, or `None` when its unique key is taken by an unfinished job. */
  def one[F[_]](session: PgSession[F], job: NewJob): F[Option[Long]] =
    session.withConnection(c => notifying(c, Seq(job))(insert(c, Seq(job)).headOption))

  /** Inserts `jobs` in one statement: `COPY` when none has a unique key (the fast path), else one
    * multi-row `INSERT` that skips jobs whose key is taken; how many were inserted.
    */
  def many[F[_]](session: PgSession[F], jobs: Seq[NewJob]): F[Long] =
    session.withConnection(c => notifying(c, jobs)(write(c, jobs)))

  /** Inserts the jobs of `jobs` as they come, `batch` per [[many]] call (in autocommit, each batch
    * commits on its own, so a long stream holds no long transaction); emits the running total after
    * each batch. The stream is read no further ahead than one batch.
    */
  def stream[F[_]](
      session: PgSession[F],
      jobs: Stream[F, NewJob],
      batch: Int
  ): Stream[F, Long] =
    jobs
      .chunkN(math.max(1, batch))
      .evalMap(chunk => many(session, chunk.toVector))
      .scan1(_ + _)

  private def write(c: Connection, jobs: Seq[NewJob]): Long =
    if jobs.isEmpty then 0L
    else if jobs.exists(_.uniqueKey.isDefined) then insert(c, jobs).size.toLong
    else
      val (scheduled, now) = jobs.partition(_.runAt.isDefined)
      copy(c, now, withRunAt = false) + copy(c, scheduled, withRunAt = true)

  private def notifying[A](c: Connection, jobs: Seq[NewJob])(write: => A): A =
    val a = write
    jobs.map(_.queue).distinct.foreach { q =>
      Jdbc.prepared(c, "SELECT pg_notify(?, ?)") { s =>
        s.setString(1, channel)
        s.setString(2, q)
        s.execute()
      }
    }
    a

  private val insertSql =
    """INSERT INTO weir.jobs (queue, payload, priority, run_at, max_attempts, unique_key)
      |SELECT q, p, pr, coalesce(ra::timestamptz, now()), ma, uk
      |  FROM unnest(?::text[], ?::text[], ?::smallint[], ?::text[], ?::integer[], ?::text[])
      |    AS t(q, p, pr, ra, ma, uk)
      |ON CONFLICT (queue, unique_key)
      |  WHERE unique_key IS NOT NULL AND state IN ('available', 'running') DO NOTHING
      |RETURNING id""".stripMargin

  private def insert(c: Connection, jobs: Seq[NewJob]): Vector[Long] =
    Jdbc.prepared(c, insertSql) { s =>
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
      Jdbc.rows(s)(_.getLong(1))
    }

  private def copy(c: Connection, jobs: Seq[NewJob], withRunAt: Boolean): Long =
    if jobs.isEmpty then 0L
    else
      val columns =
        if withRunAt then "queue, payload, priority, max_attempts, run_at"
        else "queue, payload, priority, max_attempts"
      val in =
        c.unwrap(classOf[PGConnection]).getCopyAPI.copyIn(s"COPY weir.jobs ($columns) FROM STDIN")
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
