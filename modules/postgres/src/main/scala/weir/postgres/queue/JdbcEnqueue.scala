package weir.postgres.queue

import cats.effect.{Resource, Sync}
import java.sql.Connection
import javax.sql.DataSource

/** Putting jobs in the queue on the application's own JDBC connection or pool (a HikariCP
  * `DataSource`, the connection of a doobie transaction): the same statements as [[Enqueue]]
  * (`COPY` for many jobs without unique keys, else one `INSERT`), and one notification per queue
  * written to.
  *
  * '''Transactions.''' On a `Connection`, enqueueing joins whatever transaction the connection is
  * in and never commits, rolls back or changes its autocommit: in the caller's transaction, the
  * jobs appear when the caller commits, and not at all if it rolls back; in autocommit, each
  * statement commits on its own. On a `DataSource`, a connection is borrowed for the call, the jobs
  * written, committed when the pool hands out connections with autocommit off (rolled back on an
  * error), and the connection returned.
  *
  * '''Concurrency.''' A `Connection` runs one thing at a time: calls on one connection must not
  * overlap each other or the caller's own statements. Calls on a `DataSource` may overlap (each
  * borrows its own connection).
  *
  * '''Cancellation.''' The driver calls run in `Sync[F].blocking` and are not interrupted: a
  * cancelled call completes its statement first (on a `DataSource`, its commit too).
  *
  * '''Schemas.''' Each call has a variant taking the [[QueueSchemaName]] of the queue to write to;
  * without it, `weir`.
  *
  * '''Errors.''' Driver errors are raised as `SQLException`s; nothing is retried here (a retried
  * insert whose first answer was lost could insert twice). On a `Connection` in a transaction, an
  * error leaves the transaction aborted: the caller rolls it back.
  */
object JdbcEnqueue:

  /** Inserts `job` on `connection` (see [[JdbcEnqueue]]): [[Enqueued.New]] with its id, or, when
    * its unique key is taken, [[Enqueued.Existing]] with the id of the job holding it (see
    * [[Enqueue.one]]).
    */
  def one[F[_]: Sync](connection: Connection, job: NewJob): F[Enqueued] =
    one(connection, job, QueueSchemaName.default)

  /** [[one]] into the queue in `schema`. */
  def one[F[_]: Sync](connection: Connection, job: NewJob, schema: QueueSchemaName): F[Enqueued] =
    Sync[F].blocking(direct.one(connection, job, schema))

  /** Inserts `jobs` on `connection` (see [[JdbcEnqueue]]) in one statement; how many were inserted
    * (jobs whose unique key is taken are skipped).
    */
  def many[F[_]: Sync](connection: Connection, jobs: Seq[NewJob]): F[Long] =
    many(connection, jobs, QueueSchemaName.default)

  /** [[many]] into the queue in `schema`. */
  def many[F[_]: Sync](
      connection: Connection,
      jobs: Seq[NewJob],
      schema: QueueSchemaName
  ): F[Long] =
    Sync[F].blocking(direct.many(connection, jobs, schema))

  /** Inserts `job` on a connection borrowed from `pool` (see [[JdbcEnqueue]]). */
  def one[F[_]: Sync](pool: DataSource, job: NewJob): F[Enqueued] =
    one(pool, job, QueueSchemaName.default)

  /** [[one]] on `pool` into the queue in `schema`. */
  def one[F[_]: Sync](pool: DataSource, job: NewJob, schema: QueueSchemaName): F[Enqueued] =
    borrowed(pool)(direct.one(_, job, schema))

  /** Inserts `jobs` on a connection borrowed from `pool` (see [[JdbcEnqueue]]); how many. */
  def many[F[_]: Sync](pool: DataSource, jobs: Seq[NewJob]): F[Long] =
    many(pool, jobs, QueueSchemaName.default)

  /** [[many]] on `pool` into the queue in `schema`. */
  def many[F[_]: Sync](pool: DataSource, jobs: Seq[NewJob], schema: QueueSchemaName): F[Long] =
    borrowed(pool)(direct.many(_, jobs, schema))

  private def borrowed[F[_], A](pool: DataSource)(write: Connection => A)(using F: Sync[F]): F[A] =
    Resource.fromAutoCloseable(F.blocking(pool.getConnection)).use { c =>
      F.blocking {
        try
          val a = write(c)
          if !c.getAutoCommit then c.commit()
          a
        catch
          case e: Throwable =>
            if !c.getAutoCommit then
              try c.rollback()
              catch case r: Throwable => e.addSuppressed(r)
            throw e
      }
    }

  /** The same writes as blocking calls on the current thread, for code that already runs JDBC on a
    * thread made for it: doobie's `FC.raw(c => JdbcEnqueue.direct.one(c, job))` enqueues inside a
    * `ConnectionIO`'s transaction.
    */
  object direct:

    /** [[JdbcEnqueue.one]], blocking the calling thread. */
    def one(connection: Connection, job: NewJob): Enqueued =
      EnqueueSql.one(connection, job, QueueSchemaName.default)

    /** [[JdbcEnqueue.one]] into the queue in `schema`, blocking the calling thread. */
    def one(connection: Connection, job: NewJob, schema: QueueSchemaName): Enqueued =
      EnqueueSql.one(connection, job, schema)

    /** [[JdbcEnqueue.many]], blocking the calling thread. */
    def many(connection: Connection, jobs: Seq[NewJob]): Long =
      EnqueueSql.many(connection, jobs, QueueSchemaName.default)

    /** [[JdbcEnqueue.many]] into the queue in `schema`, blocking the calling thread. */
    def many(connection: Connection, jobs: Seq[NewJob], schema: QueueSchemaName): Long =
      EnqueueSql.many(connection, jobs, schema)
