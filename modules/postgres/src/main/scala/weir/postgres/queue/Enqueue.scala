package weir.postgres.queue

import fs2.Stream
import weir.postgres.PgSession

/** Putting jobs in the queue, on the caller's [[PgSession]] (on a `java.sql.Connection` or a
  * `javax.sql.DataSource` of the application's own: [[JdbcEnqueue]]; from any client, in SQL: the
  * function `weir.enqueue`, see [[QueueSchema]]).
  *
  * '''Transactions.''' Enqueueing joins whatever the session is in: in the caller's own transaction
  * (`session.transaction(on = true)`), the jobs appear when the caller commits, and not at all if
  * it rolls back (transactional enqueue); in autocommit, each call commits on its own.
  *
  * '''Wake-ups.''' Each call sends one notification per queue it wrote to (never one per job:
  * PostgreSQL takes an instance-wide lock for notifications at commit), delivered at commit to the
  * idle workers listening ([[Wake]]).
  *
  * '''Schemas.''' Every call writes to the queue in `schema`, `weir` unless given
  * ([[QueueSchemaName]]): its table, its functions and its channel.
  *
  * '''Errors.''' Driver errors are raised as `SQLException`s; nothing is retried here (a retried
  * insert whose first answer was lost could insert twice). Calls on one session must not overlap.
  */
object Enqueue:

  /** The channel the workers of the queue in `weir` listen on (`QueueSchemaName.channel` for
    * another schema's); the payload of a notification is the queue's name.
    */
  val channel: String = EnqueueSql.channel

  /** Inserts `job`: [[Enqueued.New]] with its id, or, when its unique key is taken,
    * [[Enqueued.Existing]] with the id of the job holding it (nothing inserted). A concurrent
    * enqueue of the same key in a transaction not yet committed makes this call wait for it: then
    * `Existing` if it commits, `New` if it rolls back.
    */
  def one[F[_]](
      session: PgSession[F],
      job: NewJob,
      schema: QueueSchemaName = QueueSchemaName.default
  ): F[Enqueued] =
    session.withConnection(EnqueueSql.one(_, job, schema))

  /** Inserts `jobs` in one statement: `COPY` when none has a unique key (the fast path), else one
    * multi-row `INSERT` that skips jobs whose key is taken; how many were inserted.
    */
  def many[F[_]](
      session: PgSession[F],
      jobs: Seq[NewJob],
      schema: QueueSchemaName = QueueSchemaName.default
  ): F[Long] =
    session.withConnection(EnqueueSql.many(_, jobs, schema))

  /** Inserts the jobs of `jobs` as they come, `batch` per [[many]] call (in autocommit, each batch
    * commits on its own, so a long stream holds no long transaction); emits the running total after
    * each batch. The stream is read no further ahead than one batch.
    */
  def stream[F[_]](
      session: PgSession[F],
      jobs: Stream[F, NewJob],
      batch: Int,
      schema: QueueSchemaName = QueueSchemaName.default
  ): Stream[F, Long] =
    jobs
      .chunkN(math.max(1, batch))
      .evalMap(chunk => many(session, chunk.toVector, schema))
      .scan1(_ + _)
