package weir.postgres

import cats.effect.{Async, Ref}
import cats.effect.syntax.all.*
import cats.syntax.all.*
import fs2.Stream
import fs2.io.file.{Files, Flags, Path as FPath}
import java.security.MessageDigest
import java.sql.SQLException
import org.postgresql.util.PSQLException
import scala.concurrent.duration.*
import weir.{Concurrency, Source, WeirError}
import weir.engine.{Engine, EngineSettings}
import weir.stream.Prefetch

/** Applies SQL files, in order, on one [[PgSession]], on weir's engine: the files' pieces (cut by
  * [[SqlSplitter]], run ahead by [[weir.stream.Prefetch]] while the server works) are the source,
  * and applying one on the connection is the handler, one at a time, in order, failing fast.
  *
  * '''Transactions.''' A file with `transactional` runs in one transaction, committed at its end:
  * when something fails, nothing of that file stays applied. Without, each statement commits on its
  * own and statements are sent one at a time.
  *
  * '''Outcome.''' [[run]] always returns an [[ApplyReport]]: completed, failed (an [[ApplyError]],
  * a [[SplitError]], or a connection error) or interrupted. Files completed before a failure stay
  * applied. '''Cancelling''' [[run]] cancels the statement running on the server and rolls the
  * current file's transaction back, then returns the interrupted report.
  */
final class SqlApplier[F[_]] private (
    session: PgSession[F],
    more: Vector[PgSession[F]],
    settings: ApplySettings,
    val engine: Engine[F],
    val progress: ApplyProgress
)(using F: Async[F]):
  import SqlApplier.*

  /** Applies `files`, stopping early when `interrupt` completes (Ctrl-C: the statement running is
    * cancelled on the server, the file's transaction rolled back, and the report says so).
    * `beforeCommit`, when given, runs on the session at the end of each file, in its transaction if
    * it has one (migrations record themselves there), with the file's SHA-256 (computed while it is
    * read; only then) and how long it took. The session is left in the autocommit mode it was found
    * in (each file sets its own), so that a caller's next statement commits as it expects.
    */
  def run(
      files: List[SqlFile],
      interrupt: F[Unit] = F.never[Unit],
      beforeCommit: Option[(SqlFile, String, FiniteDuration) => F[Unit]] = None
  ): F[ApplyReport] =
    session.inTransaction.flatMap { was =>
      applyAll(files, interrupt, beforeCommit).guarantee(session.transaction(was).attempt.void)
    }

  private def applyAll(
      files: List[SqlFile],
      interrupt: F[Unit],
      beforeCommit: Option[(SqlFile, String, FiniteDuration) => F[Unit]]
  ): F[ApplyReport] =
    F.delay(progress.planned(files.map(_.size).sum)) >>
      (F.monotonic, Ref.of[F, State](State.empty), Ref.of[F, Option[ParallelCopy[F]]](None)).tupled
        .flatMap { (start, state, parallel) =>
          val work = engine
            .results(Source.single(steps(files, checksums = beforeCommit.isDefined)))(
              handler(state, parallel, beforeCommit.getOrElse((_, _, _) => F.unit))
            )
            .compile
            .drain
          val outcome: F[ApplyReport.Outcome] = F.race(work.attempt, interrupt).flatMap {
            case Left(Right(()))   => F.pure(ApplyReport.Outcome.Completed)
            case Left(Left(error)) => undo(parallel).as(ApplyReport.Outcome.Failed(unwrap(error)))
            case Right(()) =>
              undo(parallel) >> state.get.map(s =>
                ApplyReport.Outcome.Interrupted(s.file.map(_.name))
              )
          }
          outcome.onCancel(undo(parallel)).flatMap { o =>
            (F.monotonic, state.get).mapN { (now, s) =>
              ApplyReport(session.target.show, s.done.toList, now - start, o, s.warnings.toList)
            }
          }
        }

  /** After a failure or a cancellation: drop a COPY in progress and the open transaction. */
  private def undo(parallel: Ref[F, Option[ParallelCopy[F]]]): F[Unit] =
    (parallel.getAndSet(None).flatMap(_.traverse_(_.abandon.attempt)) >>
      session.abandonCopy.attempt >> session.inTransaction.attempt.flatMap {
        case Right(true) => session.rollback.attempt.void
        case _           => F.unit
      }).void

  private def unwrap(error: Throwable): Throwable = error match
    case WeirError.TaskFailed(_, cause) => unwrap(cause)
    case e                              => e

  /** Every file's steps, read, split and grouped ahead of the server as settings say. */
  private def steps(files: List[SqlFile], checksums: Boolean): Stream[F, ApplyStep] =
    val all = Stream.emits(files).flatMap { file =>
      Stream.eval(F.delay(MessageDigest.getInstance("SHA-256"))).flatMap { digest =>
        val pipeline = math.max(settings.pipeline, ApplySettings.handOff)
        val bytes = Files
          .forAsync[F]
          .readAll(FPath.fromNioPath(file.path), readBlock, Flags.Read)
        val hashed =
          if !checksums then bytes
          else
            bytes.chunks.evalTap { c =>
              val s = c.toArraySlice
              F.delay(digest.update(s.values, s.offset, s.length))
            }.unchunks
        val sha256 = if checksums then F.delay(hex(digest.digest())) else F.pure("")
        Stream.emit(ApplyStep.Begin(file)) ++
          hashed
            .through(SqlSplitter.pipe[F](file.name, settings.maxChunk))
            .through(ApplyStep.group(file, pipeline)) ++
          Stream.eval(sha256).map(ApplyStep.Finish(file, _))
      }
    }
    settings.prefetch.fold(all)(n => all.through(Prefetch(n)))

  private def handler(
      state: Ref[F, State],
      parallel: Ref[F, Option[ParallelCopy[F]]],
      beforeCommit: (SqlFile, String, FiniteDuration) => F[Unit]
  ): ApplyStep => F[Unit] =
    case ApplyStep.Begin(file) =>
      F.monotonic.flatMap(now => state.update(_.startFile(file, now))) >>
        session.transaction(file.transactional)
    case ApplyStep.Run(file, statements) =>
      val sql = statements.map(_.sql)
      // In a transaction the group is one round trip; without, each statement commits on its own.
      val sent =
        if file.transactional then session.run(sql, settings.pipeline) else session.runEach(sql)
      F.delay(progress.applying(statements.head.at)) >>
        sent.flatMap {
          case None =>
            F.delay {
              progress.statementsApplied(statements.size)
              progress.reached(statements.last.end)
            } >> state.update(_.statements(statements.size))
          case Some((ok, error)) =>
            F.delay(progress.statementsApplied(ok)) >>
              F.raiseError(failed(file, statements(math.min(ok, statements.size - 1)), error, None))
        }
    case ApplyStep.CopyStart(file, statement) =>
      val spread =
        more.nonEmpty && !file.transactional && ParallelCopy.parallelizable(statement.sql)
      F.delay(progress.applying(statement.at)) >>
        state.update(_.copyAt(statement)) >>
        (if spread then
           ParallelCopy
             .start(session +: more, statement.sql)
             .flatMap(p => parallel.set(Some(p)))
             .adaptError(failedCopy(file, statement, lines = false))
         else session.copyStart(statement.sql).adaptError(failedCopy(file, statement)))
    case ApplyStep.CopyChunk(file, data) =>
      (state.get, parallel.get).tupled.flatMap { (s, spread) =>
        s.copy.traverse_ { c =>
          spread match
            case None => session.copyData(data.bytes).adaptError(failedCopy(file, c))
            case Some(p) =>
              if data.bytes.last.contains('\n'.toByte) then
                p.send(data).adaptError(failedCopy(file, c, lines = false))
              else F.raiseError(ApplyError.CopyLineTooLong(c.at, settings.maxChunk))
        }
      } >> state.update(s => s.copy(copyLines = s.copyLines + data.rows)) >> F.delay {
        progress.reached(data.end); progress.rowsLoaded(data.rows.toLong)
      }
    case ApplyStep.CopyFinish(file, end) =>
      (state.get, parallel.getAndSet(None)).tupled.flatMap { (s, spread) =>
        val copyEnd = s.copy.fold(F.pure(0L)) { c =>
          spread match
            case None    => session.copyEnd.adaptError(failedCopy(file, c))
            case Some(p) => p.finish.adaptError(failedCopy(file, c, lines = false))
        }
        copyEnd.flatMap { rows =>
          F.delay {
            // Lines were counted as they were sent; the server's count is the truth.
            progress.rowsLoaded(rows - s.copyLines)
            progress.statementsApplied(1)
            progress.reached(end.end)
          } >> state.update(_.copied(rows, end))
        }
      }
    case ApplyStep.Finish(file, sha256) =>
      F.monotonic.flatMap { now =>
        state.get.flatMap { s =>
          val took = now - s.fileStart
          beforeCommit(file, sha256, took) >>
            (if file.transactional then session.commit else F.unit) >>
            F.delay(progress.fileDone(file.size)) >>
            state.update(_.finished(file, sha256, took))
        }
      }

  /** A COPY's error; the server names the body's line, counted from the line after `;` (not when
    * the body is spread over connections: each counts its own lines).
    */
  private def failedCopy(
      file: SqlFile,
      statement: SqlPiece.Statement,
      lines: Boolean = true
  ): PartialFunction[Throwable, Throwable] = { case e: SQLException =>
    val line = if lines then copyLine(e).map(n => statement.end.lines + 1 + n) else None
    failed(file, statement, e, line)
  }

  /** The error of `statement`, placed in the file as closely as the server says. */
  private def failed(
      file: SqlFile,
      statement: SqlPiece.Statement,
      error: SQLException,
      line: Option[Long]
  ): Throwable =
    val server = Option(error match
      case p: PSQLException => p.getServerErrorMessage
      case _                => null
    )
    server match
      case None =>
        val reason = Option(error.getMessage).getOrElse(error.toString)
        if Option(error.getSQLState).exists(_.startsWith("08")) then
          ApplyError.ConnectionLost(session.target.show, reason)
        else error
      case Some(m) =>
        val message = ApplyError.ServerMessage(
          Option(m.getSQLState).getOrElse("?????"),
          Option(m.getMessage).getOrElse(error.getMessage),
          Option(m.getDetail),
          Option(m.getHint),
          Option(m.getWhere),
          Option(m.getPosition).filter(_ > 0)
        )
        val at = line match
          case Some(l) => SqlPosition(file.name, l, 1)
          case None    => message.position.fold(statement.at)(locate(statement, _))
        ApplyError.StatementFailed(
          statement.at,
          at,
          message,
          statement.sql.linesIterator.nextOption().getOrElse(""),
          file.transactional
        )

object SqlApplier:

  /** Blocks read from a file at a time. */
  private val readBlock = 64 * 1024

  private val sequential: EngineSettings =
    // One task at a time, in the source's order: concurrency 1 is always valid.
    EngineSettings.default.withConcurrency(Concurrency(1))

  /** An applier on `session` with `settings`, with its engine and progress counters. */
  def create[F[_]: Async](session: PgSession[F], settings: ApplySettings): F[SqlApplier[F]] =
    spread(session, settings, Vector.empty)

  /** [[create]] with `more` sessions: each COPY body of a file applied without a transaction is
    * spread over all of them ([[ParallelCopy]]); everything else runs on `session`. A body with a
    * line longer than a chunk then fails with [[ApplyError.CopyLineTooLong]].
    */
  def spread[F[_]: Async](
      session: PgSession[F],
      settings: ApplySettings,
      more: Vector[PgSession[F]]
  ): F[SqlApplier[F]] =
    Engine
      .create[F](sequential)
      .map(engine => new SqlApplier(session, more, settings, engine, ApplyProgress.create()))

  private def hex(bytes: Array[Byte]): String = bytes.map(b => f"${b & 0xff}%02x").mkString

  /** The position of character `position` (1-based, as the server counts) of `statement`. */
  private[postgres] def locate(statement: SqlPiece.Statement, position: Int): SqlPosition =
    val before = statement.sql.take(position - 1)
    val breaks = before.count(_ == '\n')
    if breaks == 0 then statement.at.copy(column = statement.at.column + before.length)
    else
      statement.at.copy(
        line = statement.at.line + breaks,
        column = before.length - before.lastIndexOf('\n')
      )

  private val copyLinePattern = """COPY [^,]+, line (\d+)""".r.unanchored

  /** The body line a COPY error names in its context ("COPY big, line 12, column x: ..."). */
  private def copyLine(error: SQLException): Option[Long] = error match
    case p: PSQLException =>
      Option(p.getServerErrorMessage).flatMap(m => Option(m.getWhere)).collect {
        case copyLinePattern(n) => n.toLong
      }
    case _ => None

  /** What the handler knows across steps: the file being applied and what is done. */
  private final case class State(
      file: Option[SqlFile],
      fileStart: FiniteDuration,
      fileStatements: Long,
      fileRows: Long,
      copy: Option[SqlPiece.Statement],
      copyLines: Long,
      done: Vector[ApplyReport.FileDone],
      warnings: Vector[String]
  ):
    def startFile(f: SqlFile, now: FiniteDuration): State =
      copy(file = Some(f), fileStart = now, fileStatements = 0, fileRows = 0)
    def statements(n: Int): State = copy(fileStatements = fileStatements + n)
    def copyAt(s: SqlPiece.Statement): State = copy(copy = Some(s), copyLines = 0)
    def copied(rows: Long, end: SqlPiece.CopyEnd): State =
      val warning =
        if end.terminated then None
        else
          Some(
            s"${end.copy.show}: the COPY body ended at the end of the file, not at a \\. line (was the file cut short?)"
          )
      copy(
        fileStatements = fileStatements + 1,
        fileRows = fileRows + rows,
        copy = None,
        warnings = warnings ++ warning
      )
    def finished(f: SqlFile, sha256: String, took: FiniteDuration): State =
      copy(
        file = None,
        done = done :+ ApplyReport.FileDone(f.name, fileStatements, fileRows, f.size, took, sha256)
      )

  private object State:
    val empty: State = State(None, Duration.Zero, 0, 0, None, 0, Vector.empty, Vector.empty)
