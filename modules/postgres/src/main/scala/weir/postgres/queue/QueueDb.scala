package weir.postgres.queue

import cats.effect.{Async, Ref, Resource}
import cats.effect.std.{Mutex, Random}
import cats.syntax.all.*
import java.sql.{Connection, SQLException}
import javax.sql.DataSource
import weir.engine.RetryPolicy
import weir.postgres.{ApplyError, PgSession, PgTarget}

/** One connection of a worker that comes back after it is lost: a PostgreSQL restarted, a network
  * cut, a server that refuses connections for a while. The connection is weir's own, opened on a
  * [[weir.postgres.PgTarget]] ([[QueueDb.resource]]), or one borrowed from the application's pool
  * and held until it is lost or the handle released ([[QueueDb.borrowing]]): either way at most one
  * at a time.
  *
  * '''Concurrency.''' Calls are serialised (a connection runs one thing at a time): a call waits
  * for the one before it.
  *
  * '''Errors.''' A connection that cannot be opened is a [[QueueError.ConnectFailed]]. With
  * [[use]], a call that fails because the connection is lost ([[QueueDb.lost]]) closes it, waits a
  * delay drawn by `reconnect` (full jitter, growing with each failure in a row), opens a new one
  * and runs the call again, as long as it takes: the call must be safe to repeat (every statement
  * of the queue is, see [[Completer]]); a borrowed connection is given back to its pool first
  * (which evicts it if it is broken) and another borrowed. Any other error is raised. With [[once]]
  * nothing is repeated: a lost connection is dropped (the next call opens a new one) and the error
  * raised.
  *
  * '''Cancellation.''' Cancelling a call cancels its statement on the server; a wait between tries
  * is cut short.
  */
private[weir] final class QueueDb[F[_]] private (
    open: Resource[F, PgSession[F]],
    reconnect: RetryPolicy,
    mutex: Mutex[F],
    private val current: Ref[F, Option[(PgSession[F], F[Unit])]],
    reconnects: Ref[F, Long],
    random: Random[F],
    onLost: F[Unit]
)(using F: Async[F]):

  /** Runs `f` on the connection, repeating it on a new connection while the connection is lost. */
  def use[A](f: Connection => A): F[A] =
    Backoff.retrying(reconnect, random, QueueDb.lost)(mutex.lock.surround(run(f)))

  /** Runs `f` once; a lost connection is dropped and its error raised (see [[QueueDb]]). */
  def once[A](f: Connection => A): F[A] = mutex.lock.surround(run(f))

  /** How many times a lost connection was dropped since this handle was made. */
  def lostConnections: F[Long] = reconnects.get

  // Under the mutex: the open session, else a new one; a lost one is closed and forgotten.
  private def run[A](f: Connection => A): F[A] =
    current.get
      .flatMap {
        case Some((session, _)) => F.pure(session)
        case None =>
          open.allocated
            .adaptError { case ApplyError.ConnectFailed(t, reason) =>
              QueueError.ConnectFailed(t, reason)
            }
            .flatMap((session, close) => current.set(Some((session, close))).as(session))
      }
      .flatMap(_.withConnection(f))
      .onError { case e if QueueDb.lost(e) => drop }

  private def drop: F[Unit] =
    reconnects.update(_ + 1) >> onLost.attempt >>
      current.getAndSet(None).flatMap(_.traverse_((_, close) => close.attempt.void))

private[weir] object QueueDb:

  /** A handle on `target`, connecting at its first call as `application`; the connection is closed
    * on release. `onLost`, if given, runs each time a lost connection is dropped (its errors are
    * ignored).
    */
  def resource[F[_]: Async](
      target: PgTarget,
      application: String,
      reconnect: RetryPolicy,
      onLost: Option[F[Unit]] = None
  ): Resource[F, QueueDb[F]] =
    opening(PgSession.open[F](target, application), reconnect, onLost)

  /** A handle whose connection is borrowed from `pool` at its first call, as `application` (see
    * [[weir.postgres.PgSession.borrowed]]), and given back on release (or when it is lost);
    * `onLost` as for [[resource]].
    */
  def borrowing[F[_]: Async](
      pool: DataSource,
      application: String,
      reconnect: RetryPolicy,
      onLost: Option[F[Unit]] = None
  ): Resource[F, QueueDb[F]] =
    opening(PgSession.borrowed[F](pool, application), reconnect, onLost)

  /** A handle whose connection is `open`ed at its first call and again after it is lost. */
  def opening[F[_]: Async](
      open: Resource[F, PgSession[F]],
      reconnect: RetryPolicy,
      onLost: Option[F[Unit]] = None
  ): Resource[F, QueueDb[F]] =
    val make = for
      mutex <- Mutex[F]
      current <- Ref.of[F, Option[(PgSession[F], F[Unit])]](None)
      reconnects <- Ref.of[F, Long](0L)
      random <- Random.scalaUtilRandom[F]
    yield new QueueDb(
      open,
      reconnect,
      mutex,
      current,
      reconnects,
      random,
      onLost.getOrElse(Async[F].unit)
    )
    Resource.make(make)(db => db.current.getAndSet(None).flatMap(_.traverse_(_._2.attempt.void)))

  /** True when `e` says the connection is gone or the server is not accepting connections (yet):
    * SQLSTATE class 08 (connection exception), 57P01-57P03 (shut down, crash, starting up), or a
    * connection that could not be opened ([[QueueError.ConnectFailed]]).
    */
  def lost(e: Throwable): Boolean = e match
    case _: QueueError.ConnectFailed => true
    case s: SQLException =>
      val state = Option(s.getSQLState).getOrElse("")
      state.startsWith("08") || state.startsWith("57P") ||
      Option(s.getCause).exists(lost)
    case _: java.io.IOException => true
    case other                  => Option(other.getCause).exists(c => (c ne other) && lost(c))
