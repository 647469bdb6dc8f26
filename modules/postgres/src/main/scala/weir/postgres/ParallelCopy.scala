package weir.postgres

import cats.effect.{Async, Deferred, Fiber}
import cats.effect.std.Queue
import cats.effect.syntax.all.*
import cats.syntax.all.*
import fs2.Stream
import weir.{Concurrency, Source, WeirError}
import weir.engine.{Engine, EngineSettings}

/** One `COPY ... FROM STDIN` body spread over several connections (`--parallel-copy N`): the same
  * statement runs on every session, and weir's engine, at concurrency N, writes each chunk (whole
  * lines) to whichever session is free. Each connection's COPY commits on its own: this runs
  * outside a transaction, and a failure leaves the rows other connections loaded.
  *
  * Only for COPY's text format, where a line is a row: a CSV field may hold a line break and a
  * header line would be loaded N times, so [[parallelizable]] says no to `CSV`, `BINARY` and
  * `HEADER`.
  *
  * '''Errors.''' The first failed write stops the engine; [[send]] and [[finish]] raise it. '''Back
  * pressure.''' [[send]] waits while N chunks are queued.
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

  /** Stops writing and abandons the COPY on every session. */
  def abandon: F[Unit] = writing.cancel >> sessions.traverse_(_.abandonCopy.attempt)

private[postgres] object ParallelCopy:

  /** False for COPYs whose lines are not rows, or whose first line is a header. */
  def parallelizable(copySql: String): Boolean =
    val words = SqlStatements.keywords(copySql, limit = 64)
    !words.exists(w => w == "CSV" || w == "BINARY" || w == "HEADER")

  /** Starts `sql` on every session and the engine that writes chunks to them. */
  def start[F[_]: Async](sessions: Vector[PgSession[F]], sql: String): F[ParallelCopy[F]] =
    val n = sessions.size
    for
      _ <- sessions.traverse_(_.copyStart(sql))
      chunks <- Queue.bounded[F, Option[SqlPiece.CopyData]](n)
      free <- Queue.bounded[F, PgSession[F]](n)
      _ <- sessions.traverse_(free.offer)
      failed <- Deferred[F, Throwable]
      settings <- Async[F].fromEither(
        Concurrency.from(n).map(EngineSettings.default.withConcurrency)
      )
      engine <- Engine.create[F](settings)
      write = (data: SqlPiece.CopyData) =>
        free.take.flatMap(s => s.copyData(data.bytes).guarantee(free.offer(s)))
      writing <- engine
        .run(Source.single(Stream.fromQueueNoneTerminated(chunks)))(write)
        .void
        .handleErrorWith { e =>
          val cause = e match
            case WeirError.TaskFailed(_, c) => c
            case other                      => other
          failed.complete(cause) >> Async[F].raiseError(cause)
        }
        .start
    yield new ParallelCopy(sessions, chunks, writing, failed)
