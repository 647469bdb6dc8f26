package weir.postgres.queue

import cats.effect.IO
import cats.syntax.all.*
import scala.concurrent.duration.*
import weir.postgres.{PgSession, PgTarget}

/** Faults injected into a test database while a worker runs, and bounded waits for what must
  * follow: a login role of the worker's own (so that privileges and settings can be taken from it
  * alone), a lock held on `weir.jobs` for a while, a privilege revoked and granted back.
  */
object Faults:
  import QueueDbs.*

  /** Runs `statement` (any SQL, no result) as the test's superuser. */
  def exec(db: PgTarget, statement: String): IO[Unit] =
    sql(db)(c => Jdbc.prepared(c, statement)(_.execute()): Unit)

  /** A new login role that may use the queue of `db` (tables, sequences and functions of schema
    * `weir`), with `settings` (`name = value`, e.g. `statement_timeout = '1500ms'`) as its own; the
    * target as that role.
    */
  def workerRole(db: PgTarget, settings: String*): IO[PgTarget] =
    val role = s"r_${db.database}".take(60)
    val statements = List(
      s"CREATE ROLE $role LOGIN",
      s"GRANT USAGE ON SCHEMA weir TO $role",
      s"GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA weir TO $role",
      s"GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA weir TO $role"
    ) ++ settings.map(s => s"ALTER ROLE $role SET $s")
    statements.traverse_(exec(db, _)).as(db.withUser(role))

  /** Holds `LOCK weir.jobs` (access exclusive: every statement on the table waits) for `seconds` in
    * a transaction of its own; `locked` runs once the lock is taken. Returns when it is released.
    */
  def lockJobs(db: PgTarget, seconds: Double, locked: IO[Unit]): IO[Unit] =
    PgSession.open[IO](db, "weir test lock").use { s =>
      s.withConnection { c =>
        c.setAutoCommit(false)
        Jdbc.prepared(c, "LOCK TABLE weir.jobs IN ACCESS EXCLUSIVE MODE")(_.execute()): Unit
      } >> locked >> s.withConnection { c =>
        Jdbc.prepared(c, s"SELECT pg_sleep($seconds)")(_.execute()): Unit
        c.commit()
      }
    }

  /** Polls `condition` every 50 ms until it holds; fails after `limit` saying `what`. */
  def waitUntil(what: String, limit: FiniteDuration = 60.seconds)(
      condition: IO[Boolean]
  ): IO[Unit] =
    (IO.sleep(50.millis) >> condition)
      .iterateUntil(identity)
      .void
      .timeoutTo(limit, IO.raiseError(new AssertionError(s"waited $limit for: $what")))

  /** [[waitUntil]] `query`'s count equals `n` (or more, with `atLeast`). */
  def waitCount(db: PgTarget, query: String, n: Long, atLeast: Boolean = false): IO[Unit] =
    waitUntil(s"$query = $n")(long(db, query).map(c => if atLeast then c >= n else c == n))
