package weir.postgres.queue

import cats.MonadThrow
import cats.effect.Resource
import cats.syntax.all.*
import java.sql.Connection
import weir.postgres.PgSession

/** Looks at a queue from outside its workers, as a crash test must (`weir queue torture`): which
  * claims a worker process holds, which of its statements the server is running now, and, after a
  * run, counts over the jobs and the [[RunLog]]. Everything is read from the server; nothing in the
  * workers is instrumented.
  *
  * What ties a row or a connection to a worker process is the format of two names of [[Worker]]:
  * its default id, `host:pid:suffix` ([[Worker.defaultId]], stored in `weir.jobs.worker`), and the
  * `application_name` of its connections, `weir worker (role) pid` ([[Worker.applicationName]]).
  * Its claims and completions are recognised in `pg_stat_activity` by the functions they call
  * ([[Claimer.function]], [[Fenced.completeFunction]]).
  *
  * '''Concurrency.''' Each method is a statement or two on the caller's session, in its transaction
  * if it has one. '''Errors.''' Driver errors are raised as `SQLException`s.
  */
private[weir] object QueueProbe:

  /** The statement a worker is running: a claim or a completion. */
  enum Kind:
    case Claim, Complete

  /** A claim or completion of worker process `process`, running (or waiting on a lock) on backend
    * `backend` since `startedAt` (`query_start` as the server prints it: exact, to compare).
    */
  final case class Statement(process: Long, kind: Kind, backend: Int, startedAt: String)

  /** Counts over a set of jobs: how many there are, neither completed nor cancelled, completed
    * without a recorded run of the attempt they completed under, the runs recorded (one per attempt
    * started, see [[RunLog]]), the jobs with at least one, and the late writes refused about them.
    */
  final case class Tally(
      jobs: Long,
      unfinished: Long,
      completedWithoutRun: Long,
      runs: Long,
      jobsRun: Long,
      refusedWrites: Long
  ):
    /** Runs beyond one per job. */
    def duplicates: Long = runs - jobsRun

  /** The claims that worker process `process` holds on `queue` now: its jobs running. */
  def held[F[_]](
      session: PgSession[F],
      queue: String,
      process: Long,
      schema: QueueSchemaName = QueueSchemaName.default
  ): F[Vector[Job.Claim]] =
    session.withConnection { c =>
      Jdbc.prepared(
        c,
        s"SELECT id, attempt FROM $schema.jobs WHERE queue = ? AND state = 'running' AND worker LIKE ?"
      ) { s =>
        s.setString(1, queue)
        s.setString(2, s"%:$process:%")
        Jdbc.rows(s)(r => Job.Claim(r.getLong(1), r.getInt(2)))
      }
    }

  /** How many running jobs of `queue` each worker process holds (processes holding none are left
    * out).
    */
  def holding[F[_]](
      session: PgSession[F],
      queue: String,
      schema: QueueSchemaName = QueueSchemaName.default
  ): F[Map[Long, Long]] =
    session.withConnection { c =>
      Jdbc
        .prepared(
          c,
          s"SELECT split_part(worker, ':', 2), count(*) FROM $schema.jobs WHERE queue = ? AND state = 'running' GROUP BY 1"
        ) { s =>
          s.setString(1, queue)
          Jdbc.rows(s)(r => Option(r.getString(1)).flatMap(_.toLongOption).map(_ -> r.getLong(2)))
        }
        .flatten
        .toMap
    }

  /** How many jobs of `queue` have neither completed nor been cancelled (a crash test cancels some
    * on purpose, and counts those itself).
    */
  def unfinished[F[_]](
      session: PgSession[F],
      queue: String,
      schema: QueueSchemaName = QueueSchemaName.default
  ): F[Long] =
    session.withConnection { c =>
      Jdbc.prepared(
        c,
        s"SELECT count(*) FROM $schema.jobs WHERE queue = ? AND state NOT IN ('completed', 'cancelled')"
      ) { s =>
        s.setString(1, queue)
        Jdbc.rows(s)(_.getLong(1)).head
      }
    }

  /** How many of `claims` are still running under their attempt. */
  def stillRunning[F[_]](
      session: PgSession[F],
      claims: Seq[Job.Claim],
      schema: QueueSchemaName = QueueSchemaName.default
  ): F[Long] =
    session.withConnection { c =>
      Jdbc.prepared(
        c,
        s"""SELECT count(*) FROM $schema.jobs j
          |  JOIN unnest(?::bigint[], ?::integer[]) AS c(id, attempt)
          |    ON j.id = c.id AND j.attempt = c.attempt
          | WHERE j.state = 'running'""".stripMargin
      ) { s =>
        claimArrays(c, s, claims)
        Jdbc.rows(s)(_.getLong(1)).head
      }
    }

  /** Whether a run of one of `claims` (the same attempt) was recorded by `worker` ([[RunLog]]). */
  def ranAny[F[_]](
      session: PgSession[F],
      worker: String,
      claims: Seq[Job.Claim],
      schema: QueueSchemaName = QueueSchemaName.default
  ): F[Boolean] =
    session.withConnection { c =>
      Jdbc.prepared(
        c,
        s"""SELECT EXISTS (SELECT 1 FROM $schema.job_runs r
          |  JOIN unnest(?::bigint[], ?::integer[]) AS c(id, attempt)
          |    ON r.job_id = c.id AND r.attempt = c.attempt
          | WHERE r.worker = ?)""".stripMargin
      ) { s =>
        claimArrays(c, s, claims)
        s.setString(3, worker)
        Jdbc.rows(s)(_.getBoolean(1)).head
      }
    }

  /** The [[Tally]] of every job of `queue`, in one snapshot. */
  def tally[F[_]](
      session: PgSession[F],
      queue: String,
      schema: QueueSchemaName = QueueSchemaName.default
  ): F[Tally] =
    session.withConnection { c =>
      Jdbc.prepared(c, queueTally(schema)) { s =>
        (1 to 6).foreach(s.setString(_, queue))
        Jdbc.rows(s)(readTally).head
      }
    }

  /** The [[Tally]] of the jobs `ids` (as many as exist), in one snapshot. */
  def tally[F[_]](session: PgSession[F], ids: Set[Long]): F[Tally] =
    tally(session, ids, QueueSchemaName.default)

  /** The [[Tally]] of the jobs `ids` of the queue in `schema`. */
  def tally[F[_]](session: PgSession[F], ids: Set[Long], schema: QueueSchemaName): F[Tally] =
    session.withConnection { c =>
      Jdbc.prepared(c, idsTally(schema)) { s =>
        (1 to 6).foreach(s.setArray(_, Jdbc.longs(c, ids.toSeq)))
        Jdbc.rows(s)(readTally).head
      }
    }

  /** The claims and completions that worker processes are running now (or waiting to run). */
  def statements[F[_]](session: PgSession[F]): F[Vector[Statement]] =
    statements(session, QueueSchemaName.default)

  /** [[statements]] of the workers of the queue in `schema`. */
  def statements[F[_]](session: PgSession[F], schema: QueueSchemaName): F[Vector[Statement]] =
    session.withConnection { c =>
      Jdbc
        .prepared(
          c,
          """SELECT substring(application_name from '[)] ([0-9]+)$'), pid, query_start::text,
            |       query LIKE ?
            |  FROM pg_stat_activity
            | WHERE application_name LIKE 'weir worker (%' AND state = 'active'
            |   AND (query LIKE ? OR query LIKE ?)""".stripMargin
        ) { s =>
          s.setString(1, claimCall(schema))
          s.setString(2, claimCall(schema))
          s.setString(3, completeCall(schema))
          Jdbc.rows(s) { r =>
            Option(r.getString(1)).flatMap(_.toLongOption).map { process =>
              val kind = if r.getBoolean(4) then Kind.Claim else Kind.Complete
              Statement(process, kind, r.getInt(2), r.getString(3))
            }
          }
        }
        .flatten
    }

  /** Whether `statement` is still running (or waiting) on its backend: the same one, by its start.
    */
  def stillActive[F[_]](session: PgSession[F], statement: Statement): F[Boolean] =
    session.withConnection { c =>
      Jdbc.prepared(
        c,
        "SELECT EXISTS (SELECT 1 FROM pg_stat_activity WHERE pid = ? AND state = 'active' AND query_start::text = ?)"
      ) { s =>
        s.setInt(1, statement.backend)
        s.setString(2, statement.startedAt)
        Jdbc.rows(s)(_.getBoolean(1)).head
      }
    }

  /** Every write to `weir.jobs` stalled while in use: `LOCK TABLE weir.jobs IN EXCLUSIVE MODE` in a
    * transaction on `session` (a connection for this alone), so that a claim or a completion waits
    * on the lock long enough to be seen ([[statements]]); reads go on. The transaction is rolled
    * back on release, and the session left in autocommit, whatever happened.
    */
  def stallWrites[F[_]: MonadThrow](
      session: PgSession[F],
      schema: QueueSchemaName = QueueSchemaName.default
  ): Resource[F, Unit] =
    val unlock = session.rollback.attempt >> session.transaction(on = false).attempt.void
    val lock = session.transaction(on = true) >>
      session.update(s"LOCK TABLE $schema.jobs IN EXCLUSIVE MODE").onError(_ => unlock)
    Resource.make(lock)(_ => unlock)

  // The functions' calls as pg_stat_activity shows them (LIKE patterns).
  private def claimCall(schema: QueueSchemaName) = s"%${Claimer.function(schema)}(%"
  private def completeCall(schema: QueueSchemaName) = s"%${Fenced.completeFunction(schema)}(%"

  private def claimArrays(c: Connection, s: java.sql.PreparedStatement, claims: Seq[Job.Claim]) =
    s.setArray(1, Jdbc.longs(c, claims.map(_.id)))
    s.setArray(2, Jdbc.ints(c, claims.map(_.attempt)))

  private def readTally(r: java.sql.ResultSet): Tally =
    Tally(r.getLong(1), r.getLong(2), r.getLong(3), r.getLong(4), r.getLong(5), r.getLong(6))

  // A Tally's six counts over the jobs j that `jobs` selects (one parameter each time).
  private def tallyOf(jobs: String, schema: QueueSchemaName): String =
    s"""SELECT
       |  (SELECT count(*) FROM $schema.jobs j WHERE $jobs),
       |  (SELECT count(*) FROM $schema.jobs j WHERE $jobs AND j.state NOT IN ('completed', 'cancelled')),
       |  (SELECT count(*) FROM $schema.jobs j WHERE $jobs AND j.state = 'completed'
       |      AND NOT EXISTS (SELECT 1 FROM $schema.job_runs r
       |                       WHERE r.job_id = j.id AND r.attempt = j.attempt)),
       |  (SELECT count(*) FROM $schema.job_runs r JOIN $schema.jobs j ON j.id = r.job_id WHERE $jobs),
       |  (SELECT count(DISTINCT r.job_id) FROM $schema.job_runs r JOIN $schema.jobs j ON j.id = r.job_id
       |    WHERE $jobs),
       |  (SELECT count(*) FROM $schema.job_rejections x JOIN $schema.jobs j ON j.id = x.job_id
       |    WHERE $jobs)""".stripMargin

  private def queueTally(schema: QueueSchemaName) = tallyOf("j.queue = ?", schema)
  private def idsTally(schema: QueueSchemaName) = tallyOf("j.id = ANY (?)", schema)
