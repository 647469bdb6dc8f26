package weir.postgres

import cats.effect.{Async, Resource}
import cats.effect.syntax.all.*
import cats.syntax.all.*
import fs2.Chunk
import java.sql.{Connection, SQLException}
import org.postgresql.PGConnection
import org.postgresql.copy.CopyIn
import org.postgresql.core.{
  BaseConnection,
  NativeQuery,
  Query,
  QueryExecutor,
  SqlCommand,
  SqlCommandType
}
import org.postgresql.util.PSQLException
import scala.jdk.CollectionConverters.*
import weir.Concurrency
import weir.runtime.BlockingPool

/** One pgjdbc connection, used by one caller at a time (calls must not overlap: a connection runs
  * one thing at a time). Every driver call runs on the session's own [[weir.runtime.BlockingPool]]
  * of one thread, never on the compute pool.
  *
  * '''Cancellation.''' Cancelling a call that is running on the server sends PostgreSQL a cancel
  * request (as Ctrl-C in psql does) and completes once the driver call has returned, so no
  * statement keeps running behind a cancelled fiber.
  *
  * '''Errors.''' Driver failures are raised as the driver's `SQLException`s; [[PgSession.open]]
  * raises [[ApplyError.ConnectFailed]].
  */
final class PgSession[F[_]] private (
    val target: PgTarget,
    connection: Connection,
    pool: BlockingPool[F]
)(using F: Async[F]):
  private val pg = connection.unwrap(classOf[PGConnection])
  private val executor = connection.unwrap(classOf[BaseConnection]).getQueryExecutor
  // Touched only by the one caller at a time (see above), on the pool's thread.
  private var copy: Option[CopyIn] = None
  // The server's notices of the last run or runEach, with their statements' indexes.
  private val heard = new java.util.concurrent.ConcurrentLinkedQueue[(Int, String)]

  /** The server's notices and warnings (`RAISE NOTICE`, as psql prints them: `NOTICE: text`) that
    * the statements of the last [[run]] or [[runEach]] raised, each with its statement's index in
    * the statements given, in order; or those of the last [[result]] or COPY ([[copyStart]] to
    * [[copyEnd]] or [[abandonCopy]]), at index 0. Each is returned once, and those not read are
    * dropped at the next call.
    */
  def notices(): Vector[(Int, String)] =
    Iterator.continually(heard.poll()).takeWhile(_ != null).toVector

  /** Runs `thunk` on the pool; cancelling it cancels the statement on the server (see above). */
  private def call[A](thunk: => A): F[A] = callThen(thunk)(_ => F.unit)

  /** [[call]]; when cancelled, `cancelled` runs with what `thunk` returned once stopped. */
  private def callThen[A](thunk: => A)(cancelled: A => F[Unit]): F[A] =
    F.uncancelable { poll =>
      pool.run(thunk).start.flatMap { fiber =>
        poll(fiber.joinWithNever).onCancel(
          F.delay(pg.cancelQuery()).attempt >> fiber.join
            .flatMap(_.fold(F.unit, _ => F.unit, _.flatMap(cancelled)))
        )
      }
    }

  /** Autocommit off (`true`: statements run in a transaction that [[commit]] ends) or on. */
  def transaction(on: Boolean): F[Unit] = call(connection.setAutoCommit(!on))

  /** True when statements run in a transaction (autocommit is off). */
  def inTransaction: F[Boolean] = call(!connection.getAutoCommit)

  def commit: F[Unit] = call(connection.commit())

  /** Closes the connection now, before the session's release (which then finds it closed): for an
    * owner that is done with it early ([[SqlApplier.owning]]).
    */
  private[postgres] def close: F[Unit] = call(connection.close())

  def rollback: F[Unit] = call(connection.rollback())

  /** Sends `statements`, `perRoundTrip` at a time (one round trip for each such group), all in one
    * call on the pool's thread, and waits for their results: when all succeeded, the rows the last
    * returned, changed or copied (psql's `ROW_COUNT`), else the first that failed. Each statement
    * runs to its end, as psql runs it: a `SELECT` calls its functions for every row, and its rows
    * are read and dropped as they arrive, never held. The server runs none after a failed one. For
    * a transaction only (autocommit off): in autocommit a round trip's statements would run as one
    * implicit transaction: use [[runEach]] there.
    */
  def run(statements: Vector[String], perRoundTrip: Int): F[Either[PgSession.Failure, Long]] =
    call {
      heard.clear() // a caller that does not read them keeps none
      val trips = statements.grouped(math.max(1, perRoundTrip))
      var done = 0
      var result: Either[PgSession.Failure, Long] = Right(0L)
      while result.isRight && trips.hasNext do
        val trip = trips.next()
        result = runNow(trip, done).left.map(f => f.copy(index = done + f.index))
        done += trip.size
      result
    }

  /** Runs `statements` one after another, each in its own round trip (in autocommit, each commits
    * on its own), all in one call on the pool's thread; stops at the first that fails. Cancelled,
    * it runs `cancelled` with how many had completed when the statement running was stopped (in
    * autocommit, those stay committed).
    */
  def runEach(
      statements: Vector[String],
      cancelled: Int => F[Unit] = (_: Int) => F.unit
  ): F[Either[PgSession.Failure, Long]] =
    callThen {
      heard.clear()
      var i = 0
      var result: Either[PgSession.Failure, Long] = Right(0L)
      while result.isRight && i < statements.size do
        result = runNow(Vector(statements(i)), i).left.map(_.copy(index = i))
        i += 1
      result
    }(result => cancelled(result.fold(_.index, _ => statements.size)))

  // One simple query (one `Query` message) holding the statements; two or more are each ended by
  // `;` on a line of its own (a statement may end in a `--` comment). Not pgjdbc's extended protocol: there its
  // QUERY_NO_RESULTS asks the server for one row at most, so a SELECT stopped after its first row
  // (docs/adr/0005-postgres-driver.md, addendum); and not a simple query each: pgjdbc flushes
  // every one, a system call per statement. The server parses the whole text, then runs the
  // statements in turn, each to its end; a failure abandons the rest of the text, a `ROLLBACK` or
  // `COMMIT` after it included. A statement alone goes as it is: no copy of a large one.
  private def runNow(statements: Vector[String], first: Int): Either[PgSession.Failure, Long] =
    val text =
      if statements.size == 1 then statements.head
      else statements.mkString("", PgSession.separator, PgSession.separator)
    val query: Query = executor.wrap(List(new NativeQuery(text, PgSession.blank)).asJava)
    val counting = new PgResultHandlers.Counting
    val autoCommit = connection.getAutoCommit
    // Both: a statement's command tag comes with its rows, whose count it holds.
    val flags = QueryExecutor.QUERY_EXECUTE_AS_SIMPLE | QueryExecutor.QUERY_NO_RESULTS |
      QueryExecutor.QUERY_BOTH_ROWS_AND_STATUS | QueryExecutor.QUERY_ONESHOT |
      (if autoCommit then QueryExecutor.QUERY_SUPPRESS_BEGIN else 0)
    try
      executor.execute(query, null, counting, 0, 0, flags)
      Right(counting.rows)
    catch case e: SQLException => Left(PgSession.Failure.in(statements, counting.completed, e))
    finally counting.notices.foreach((i, text) => heard.add((first + i, text)): Unit)

  /** Runs the one statement `sql` as [[runEach]] runs one (in the session's transaction if it has
    * one) and returns its result, for psql's `\gset` and `\gexec`: the names of its columns and its
    * rows, each value as text (`None`: `NULL`); no columns for a statement that returns no rows.
    * `Left`: it failed. Every row is read, and held, as psql holds them.
    */
  private[weir] def result(sql: String): F[Either[PgSession.Failure, PgSession.Result]] = call {
    val query: Query = executor.wrap(List(new NativeQuery(sql, PgSession.blank)).asJava)
    val rows = new PgResultHandlers.Rows
    val flags = QueryExecutor.QUERY_EXECUTE_AS_SIMPLE | QueryExecutor.QUERY_ONESHOT |
      (if connection.getAutoCommit then QueryExecutor.QUERY_SUPPRESS_BEGIN else 0)
    heard.clear()
    try
      executor.execute(query, null, rows, 0, 0, flags)
      Right(rows.result)
    catch case e: SQLException => Left(PgSession.Failure(0, e, PgSession.positionOf(e)))
    finally rows.notices.foreach((_, text) => heard.add((0, text)): Unit)
  }

  /** psql's variables for this connection ([[PsqlVariables.connection]]): its target's, and the
    * server's version as the server gave it when the session began.
    */
  private[weir] def psqlVariables: F[Map[String, String]] =
    call(PsqlVariables.connection(target, executor.getServerVersion, executor.getServerVersionNum))

  /** Starts `COPY ... FROM STDIN`; its body goes through [[copyData]], then [[copyEnd]]. */
  def copyStart(sql: String): F[Unit] =
    call {
      heard.clear()
      executor.getWarnings: Unit // a COPY's notices come here, not to a result handler
      try copy = Some(pg.getCopyAPI.copyIn(sql))
      finally copyNotices()
    }

  /** Sends one chunk of the body. */
  def copyData(bytes: Chunk[Byte]): F[Unit] =
    val slice = bytes.toArraySlice
    call(openCopy.writeToCopy(slice.values, slice.offset, slice.length))

  /** Ends the body; the rows the server loaded. */
  def copyEnd: F[Long] = call {
    try
      val rows = openCopy.endCopy()
      copy = None
      rows
    finally copyNotices()
  }

  // The notices of the COPY running (pgjdbc keeps them as its executor's warnings, which this
  // takes), for [[notices]].
  private def copyNotices(): Unit =
    Iterator
      .iterate(executor.getWarnings)(_.getNextWarning)
      .takeWhile(_ != null)
      .foreach(w => heard.add((0, PgResultHandlers.said(w))): Unit)

  private def openCopy: CopyIn =
    copy.getOrElse(throw new IllegalStateException("no COPY in progress on this session"))

  /** The rows of a query with text parameters, every column as text (`null` as `None`). */
  def query(sql: String, params: String*): F[Vector[Vector[Option[String]]]] = call {
    val statement = connection.prepareStatement(sql)
    try
      params.zipWithIndex.foreach((p, i) => statement.setString(i + 1, p))
      val rows = statement.executeQuery()
      val columns = rows.getMetaData.getColumnCount
      val out = Vector.newBuilder[Vector[Option[String]]]
      while rows.next() do out += (1 to columns).toVector.map(c => Option(rows.getString(c)))
      out.result()
    finally statement.close()
  }

  /** A statement with text parameters (`?`), for weir's own bookkeeping. */
  def update(sql: String, params: String*): F[Unit] = call {
    val statement = connection.prepareStatement(sql)
    try
      params.zipWithIndex.foreach((p, i) => statement.setString(i + 1, p))
      statement.execute()
      ()
    finally statement.close()
  }

  /** Runs `f` with the session's JDBC connection on the pool's thread, for statements the methods
    * above do not cover (arrays, returned rows, LISTEN). `f` must not keep the connection, close it
    * or use it from another thread. Cancelling behaves as for every call (see [[PgSession]]).
    */
  def withConnection[A](f: Connection => A): F[A] = call(f(connection))

  /** Abandons a COPY in progress, if any (its rows are not loaded). */
  def abandonCopy: F[Unit] = call {
    try copy.foreach(c => if c.isActive then c.cancelCopy())
    finally
      copy = None
      copyNotices()
  }

object PgSession:

  private val blank = SqlCommand.createStatementTypeInfo(SqlCommandType.BLANK)

  private val separator = "\n;\n"

  /** Where in the text it was sent the server places `error` (1-based, in characters), if it does.
    */
  private[postgres] def positionOf(error: SQLException): Option[Int] = error match
    case p: PSQLException =>
      Option(p.getServerErrorMessage).flatMap(m => Option(m.getPosition)).filter(_ > 0)
    case _ => None

  /** The statement at `index` (of those given to [[PgSession.run]] or [[PgSession.runEach]]) failed
    * with `error`; `position` is where in that statement (1-based, in characters, as the server
    * counts), when the server said.
    */
  final case class Failure(index: Int, error: SQLException, position: Option[Int])

  private[postgres] object Failure:

    /** The failure of a round trip that sent `statements` as one text (each followed by the
      * separator when there are two or more) and saw `completed` of them succeed: the server's
      * position, in that text, names the statement when it gives one (a syntax error stops the
      * whole text before any statement runs), else the statement after the completed ones.
      */
    def in(statements: Vector[String], completed: Int, error: SQLException): Failure =
      positionOf(error) match
        case None     => Failure(math.min(completed, statements.size - 1), error, None)
        case Some(at) =>
          // starts(i): how many characters (code points, as the server counts) come before
          // statement i in the text
          val starts =
            statements.scanLeft(0)((n, sql) =>
              n + sql.codePointCount(0, sql.length) + separator.length
            )
          val i = math.max(0, starts.lastIndexWhere(_ < at, statements.size - 1))
          Failure(i, error, Some(at - starts(i)))

  /** A statement's result ([[PgSession.result]]): its columns' names, and its rows as text. */
  private[weir] final case class Result(
      columns: Vector[String],
      rows: Vector[Vector[Option[String]]]
  )

  /** The `application_name` of a session whose opener gives none. */
  val defaultApplication: String = "weir"

  /** A connection to `target` with its own pool thread, named `application` (its
    * `application_name`, seen in `pg_stat_activity`); closed on release (the server rolls back a
    * transaction still open). Raises [[ApplyError.ConnectFailed]] when the server cannot be reached
    * or refuses the credentials.
    */
  def open[F[_]: Async](
      target: PgTarget,
      application: String = defaultApplication
  ): Resource[F, PgSession[F]] =
    BlockingPool.resource[F](Concurrency(1), "weir-pg").flatMap { pool =>
      Resource
        .make(pool.run(connect(target, application)))(c => pool.run(c.close()).attempt.void)
        .map(new PgSession(target, _, pool))
    }

  /** A session on a connection borrowed from the application's `pool` (a HikariCP `DataSource` over
    * pgjdbc), held until release, then given back: while held, it runs in autocommit and is named
    * `application` (its previous `application_name` restored when it is given back, and any
    * `LISTEN` it was left with ended by `UNLISTEN *`, so that the pool's next borrower gets it as
    * it was). A connection found lost is given back all the same: the pool decides whether it is
    * broken (HikariCP evicts a connection whose statement failed with a connection error).
    *
    * '''Errors.''' A connection that cannot be borrowed (the pool's own timeout, a server out of
    * reach) raises [[ApplyError.ConnectFailed]] naming the pool; one that is not a pgjdbc
    * connection underneath, an `IllegalArgumentException` (the connection given back). Giving it
    * back never raises.
    */
  private[weir] def borrowed[F[_]: Async](
      pool: javax.sql.DataSource,
      application: String = defaultApplication
  ): Resource[F, PgSession[F]] =
    val name = s"the application's pool (${pool.getClass.getName})"
    BlockingPool.resource[F](Concurrency(1), "weir-pg").flatMap { threads =>
      Resource
        .make(threads.run(PgBorrowing.borrow(pool, name, application)))((c, before) =>
          threads.run(PgBorrowing.giveBack(c, before)).attempt.void
        )
        .map((c, _) => new PgSession(PgBorrowing.pooledTarget(c), c, threads))
    }

  /** Raises (in `F`) the `IllegalArgumentException` of [[borrowed]] when a connection borrowed from
    * `pool` is not pgjdbc's underneath; nothing when it is, or when none can be borrowed now.
    */
  private[weir] def checkPool[F[_]: Async](pool: javax.sql.DataSource): F[Unit] =
    Async[F].blocking(PgBorrowing.check(pool))

  private def connect(target: PgTarget, application: String): Connection =
    val properties = target.properties
    properties.setProperty("ApplicationName", application)
    properties.setProperty("assumeMinServerVersion", "12")
    try
      val connection = new org.postgresql.Driver().connect(target.jdbcUrl, properties)
      if connection == null then throw ApplyError.ConnectFailed(target.show, "not a PostgreSQL URL")
      connection
    catch
      case e: PSQLException =>
        val reason = Option(e.getMessage).getOrElse(e.toString)
        // pgjdbc's "The server requested ... authentication, but no password was provided."
        val hint =
          if reason.contains("no password was provided") then
            " Give it in the URI (postgresql://user:password@host/db), in PGPASSWORD, or in ~/.pgpass (or the file PGPASSFILE names) as host:port:database:user:password"
          else ""
        throw ApplyError.ConnectFailed(target.show, reason + hint)
