package weir.postgres

import cats.effect.{Async, Deferred, Fiber}
import cats.effect.std.Queue
import cats.effect.syntax.all.*
import cats.syntax.all.*
import fs2.Stream

/** One `COPY ... FROM STDIN` body spread over several connections (`--parallel-copy N`): the same
  * statement runs on every session, and a writer (fs2's `parEvalMapUnordered(N)` over the pool of
  * sessions) writes each chunk (whole lines) to whichever session is free. Each connection's COPY
  * commits on its own: this runs outside a transaction, and a failure leaves the rows other
  * connections loaded.
  *
  * Not a second engine: the chunks are the fan-out of the apply's own steps (its run's handler
  * queues them here), with no policy, retry or statistic of their own; the apply's run stops and
  * cancels them ([[abandon]], called when the run has stopped, failed or been cancelled).
  *
  * Only for COPY's text format, where a line is a row: a CSV field may hold a line break and a
  * header line would be loaded N times, so [[parallelizable]] says no to `CSV`, `BINARY` and
  * `HEADER`.
  *
  * '''Errors.''' The first failed write stops the writer; [[send]] and [[finish]] raise it (the
  * driver's error, as raised). '''Back pressure.''' [[send]] waits while N chunks are queued.
  */
private[postgres] final class ParallelCopy[F[_]] private (
    sessions: Vector[PgSession[F]],
    chunks: Queue[F, Option[SqlPiece.CopyData]],
    writing: Fiber[F, Throwable, Unit],
    failed: Deferred[F, Throwable]
)(using F: Async[F]):

  /** Queues one chunk for the next free session; raises the first write error instead. */
  def send(data: SqlPiece.CopyData): F[Unit] =
    F.race(chunks.offer(Some(data)), failed.get).flatMap {
      case Left(())     => F.unit
      case Right(error) => F.raiseError(error)
    }

  /** Waits for every chunk to be written and ends the COPY on every session: the rows loaded. */
  def finish: F[Long] =
    F.race(chunks.offer(None), failed.get).flatMap {
      case Left(())     => writing.joinWithNever
      case Right(error) => F.raiseError[Unit](error)
    } >> sessions.traverse(_.copyEnd).map(_.sum)

  /** Stops writing (cancelling the writes in flight) and abandons the COPY on every session. */
  def abandon: F[Unit] = writing.cancel >> sessions.traverse_(_.abandonCopy.attempt)

private[postgres] object ParallelCopy:

  /** False for COPYs whose lines are not rows, or whose first line is a header. */
  def parallelizable(copySql: String): Boolean =
    val words = SqlStatements.keywords(copySql, limit = 64)
    !words.exists(w => w == "CSV" || w == "BINARY" || w == "HEADER")

  /** Starts `sql` on every session and the writer that writes chunks to them. */
  def start[F[_]](sessions: Vector[PgSession[F]], sql: String)(using
      F: Async[F]
  ): F[ParallelCopy[F]] =
    val n = sessions.size
    for
      _ <- sessions.traverse_(_.copyStart(sql))
      chunks <- Queue.bounded[F, Option[SqlPiece.CopyData]](n)
      free <- Queue.bounded[F, PgSession[F]](n)
      _ <- sessions.traverse_(free.offer)
      failed <- Deferred[F, Throwable]
      write = (data: SqlPiece.CopyData) =>
        free.take.flatMap(s => s.copyData(data.bytes).guarantee(free.offer(s)))
      writing <- Stream
        .fromQueueNoneTerminated(chunks)
        .parEvalMapUnordered(n)(write)
        .compile
        .drain
        .handleErrorWith(e => failed.complete(e) >> F.raiseError(e))
        .start
    yield new ParallelCopy(sessions, chunks, writing, failed)
