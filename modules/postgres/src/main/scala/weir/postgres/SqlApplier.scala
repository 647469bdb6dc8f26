package weir.postgres

import cats.effect.{Async, Ref, Resource}
import cats.syntax.all.*
import fs2.Stream
import java.io.InputStream
import java.security.MessageDigest
import scala.concurrent.duration.*
import weir.{Capacity, Concurrency, NonNegativeDuration, Source, WeirError}
import weir.engine.{Engine, EngineSettings, Run, RunOutcome}
import weir.stream.Prefetch

/** Applies SQL files, in order, on one [[PgSession]], as one run of weir's engine: the files' steps
  * (read, cut by [[SqlSplitter]], grouped, run ahead by [[weir.stream.Prefetch]] while the server
  * works) are the source; applying one on the connection is the handler ([[ApplyHandler]]), one at
  * a time, in order, failing fast; what was applied is measured by an [[ApplyRecorder]] on the run.
  *
  * '''Transactions.''' A file with `transactional` runs in one transaction, committed at its end:
  * when something fails, nothing of that file stays applied. Without, each statement commits on its
  * own and statements are sent one at a time.
  *
  * '''Outcome.''' [[run]] always returns an [[ApplyReport]]: completed, failed (an [[ApplyError]],
  * a [[SplitError]], or a connection error) or interrupted. A fatal error of the JVM while a file
  * is read, split or applied (out of memory: a statement larger than the heap) fails it the same
  * way, as [[ApplyError.Fatal]], its file rolled back: it is caught on the thread that threw it,
  * never left to hang the run (docs/adr/0013-apply-sql-speed.md, "Round 3"). Files completed before
  * a failure stay applied. [[start]] gives the run's handle ([[ApplyRun]]), to stop it and to watch
  * it.
  *
  * '''Concurrency.''' One apply at a time per applier: its sessions take one caller at a time.
  */
final class SqlApplier[F[_]] private (
    session: PgSession[F],
    more: Vector[PgSession[F]],
    settings: ApplySettings,
    open: SqlFile => InputStream,
    owned: Boolean = false
)(using F: Async[F]):
  import SqlApplier.*

  /** Starts applying `files` in the background: the run's handle, for as long as the `Resource` is
    * in use (see [[ApplyRun]] for stopping, cancellation and the report). `beforeCommit`, when
    * given, runs on the session at the end of each file, in its transaction if it has one
    * (migrations record themselves there), with the file's SHA-256 (computed while it is read; only
    * then) and how long it took. On release the session is left in the autocommit mode it was found
    * in (each file sets its own), so that a caller's next statement commits as it expects.
    */
  def start(
      files: List[SqlFile],
      beforeCommit: Option[(SqlFile, String, FiniteDuration) => F[Unit]] = None
  ): Resource[F, ApplyRun[F]] = start(files, beforeCommit, noneInside)

  /** [[start]], applying `inside(file)`'s two lists of files (Flyway's `beforeEachMigrate` and
    * `afterEachMigrate` callbacks) before and after each `file`'s statements, in its transaction;
    * their statements are counted with the file's, their errors placed in their own file.
    */
  private[weir] def start(
      files: List[SqlFile],
      beforeCommit: Option[(SqlFile, String, FiniteDuration) => F[Unit]],
      inside: SqlFile => (List[SqlFile], List[SqlFile])
  ): Resource[F, ApplyRun[F]] =
    val commit = beforeCommit.getOrElse((_: SqlFile, _: String, _: FiniteDuration) => F.unit)
    for
      // psql's variables (from the settings, then as the files set them) and blocks, across files.
      psql <- Resource.eval(
        session.psqlVariables.flatMap(own => PsqlState.create[F](settings.variables ++ own))
      )
      source = Source.single(steps(files, checksums = beforeCommit.isDefined, inside, psql))
      // Released in reverse order: the run is cancelled (unless it has settled) and has stopped,
      // then what it left open is dropped, then the autocommit mode is restored.
      _ <- Resource.make(session.inTransaction)(was => session.transaction(was).attempt.void)
      recorder <- Resource.eval(F.delay(ApplyRecorder.create(total(files))))
      handler <- Resource.eval(
        (
          Ref.of[F, ApplyState](ApplyState.empty),
          Ref.of[F, Option[ParallelCopy[F]]](None),
          // The session given is the caller's, left open, unless the applier owns it: then a psql
          // \connect closes it, as psql closes its connection (a DROP DATABASE of it can follow).
          Ref.of[F, (PgSession[F], F[Unit])]((session, F.whenA(owned)(session.close.attempt.void)))
        )
          .mapN(new ApplyHandler(session, more, settings, recorder, commit, _, _, _, psql))
      )
      // After the undo: the session a psql \connect opened is closed.
      _ <- Resource.onFinalize(handler.disconnect)
      _ <- Resource.onFinalize(handler.undo)
      begun <- Resource.eval(F.monotonic)
      run <- Engine.startRecorded(sequential, source, recorder.recording[F], tick)(handler.apply)
      report <- Resource.eval(F.memoize(settle(run, handler, begun, files)))
    yield new ApplyRun(run, recorder, report)

  /** Applies `files` to the end (see [[start]]) and reports, whatever the outcome. Cancelling it
    * cancels the statement running on the server and rolls the current file's transaction back.
    */
  def run(
      files: List[SqlFile],
      beforeCommit: Option[(SqlFile, String, FiniteDuration) => F[Unit]] = None
  ): F[ApplyReport] =
    start(files, beforeCommit).use(_.report)

  /** Once the run has settled: what a failure or a stop left open is dropped, then the report. */
  private def settle(
      run: Run[F],
      handler: ApplyHandler[F],
      begun: FiniteDuration,
      files: List[SqlFile]
  ): F[ApplyReport] =
    val outcome = run.outcome.flatMap {
      case RunOutcome.Completed => F.pure(ApplyReport.Outcome.Completed)
      case RunOutcome.Failed(error) =>
        handler.undo >> handler.state.get.map { s =>
          ApplyReport.Outcome.Failed(original(error, files, s.file))
        }
      case RunOutcome.Stopped(_) | RunOutcome.Cancelled =>
        handler.undo >> handler.state.get.map(s =>
          ApplyReport.Outcome.Interrupted(s.file.map(_.name), s.file.forall(_.transactional))
        )
    }
    outcome.flatMap { o =>
      (F.monotonic, handler.state.get).mapN { (now, s) =>
        ApplyReport(
          session.target.show,
          s.done.toList,
          now - begun,
          o,
          s.warnings.toList,
          s.partly(now),
          s.failed
        )
      }
    }

  /** Every file's steps, read ([[FileBlocks]]), split and grouped ahead of the server as settings
    * say.
    */
  private def steps(
      files: List[SqlFile],
      checksums: Boolean,
      inside: SqlFile => (List[SqlFile], List[SqlFile]),
      psql: PsqlState[F]
  ): Stream[F, ApplyStep] =
    filesSteps(files, checksums, inside, math.max(settings.pipeline, ApplySettings.handOff), psql)

  private def filesSteps(
      files: List[SqlFile],
      checksums: Boolean,
      inside: SqlFile => (List[SqlFile], List[SqlFile]),
      pipeline: Int,
      psql: PsqlState[F]
  ): Stream[F, ApplyStep] =
    // psql's -a: every line read is said.
    val lines = PsqlScript.linesRead(settings.variables)
    def expand(f: SqlFile, tally: FileBlocks.Tally) =
      SqlIncludes.expand(f, open, settings.maxChunk, tally, psql.script, psql.awaitAnswer)
    // A file applied inside another's transaction: its statements, no Begin or Finish of its own.
    def within(files: List[SqlFile]): Stream[F, ApplyStep] =
      Stream.emits(files).flatMap { f =>
        f.replaced(FileBlocks[F](open(f), readBlock))
          .through(SqlSplitter.pipe[F](f.name, settings.maxChunk, lines))
          .through(expand(f, FileBlocks.Tally(None)))
          .through(ApplyStep.group(f, pipeline))
      }
    val all = Stream.emits(files).flatMap { file =>
      val tally =
        F.delay(FileBlocks.Tally(Option.when(checksums)(MessageDigest.getInstance("SHA-256"))))
      Stream.eval(tally).flatMap { tally =>
        val bytes = file.replaced(FileBlocks[F](open(file), readBlock, tally))
        val (before, after) = inside(file)
        val finish = F.blocking {
          tally.digestRest(file)
          ApplyStep.Finish(file, tally.digest.fold("")(d => hex(d.digest())), tally.bytes)
        }
        Stream.emit(ApplyStep.Begin(file)) ++ within(before) ++
          bytes
            .through(SqlSplitter.pipe[F](file.name, settings.maxChunk, lines))
            .through(expand(file, tally))
            .through(ApplyStep.group(file, pipeline)) ++
          within(after) ++ Stream.eval(finish)
      }
    }
    settings.prefetch.fold(all)(n => all.through(Prefetch(n)))

object SqlApplier:

  /** Steps buffered by the engine between the source and the handler. */
  private val queued: Capacity = Capacity(2)

  /** Blocks read from a file at a time. */
  private val readBlock = 256 * 1024

  /** The run's tick: the [[ApplyRecorder]]'s timeline intervals are a second wide. */
  private val tick: FiniteDuration = 1.second

  /** One step at a time, in the source's order (the default strategy's one worker takes them in
    * order), failing fast; no grace period at a stop: the statement running is cancelled on the
    * server, as psql's Ctrl-C does. At most [[queued]] steps wait between the source and the
    * handler: the source's own [[weir.stream.Prefetch]] is what runs ahead (the engine's default of
    * 200 held up to 200 COPY chunks, 13 MB at 64 KB a chunk, promoted to the old generation and
    * collected there by full GCs; 256 KB chunks ran a 64 MB heap out of memory).
    */
  private val sequential: EngineSettings =
    EngineSettings.default
      .withConcurrency(Concurrency(1))
      .withQueueCapacity(queued)
      .withStopGrace(NonNegativeDuration.zero)

  /** The apply's failure as the handler or the source raised it. The engine wraps a handler's error
    * once, in a [[weir.WeirError.TaskFailed]] naming the step (the handler raises no `TaskFailed`
    * of its own, so one level is all there is); the source's ([[SplitError]], an unreadable file)
    * come as raised. A fatal error becomes an [[ApplyError.Fatal]] that says whether its file was
    * rolled back: a handler's names its step's file and line, one the splitter did not place names
    * `current`, the file the handler was in.
    */
  private def original(
      error: Throwable,
      files: List[SqlFile],
      current: Option[SqlFile]
  ): Throwable =
    def transactional(name: String) = files.find(_.name == name).map(_.transactional)
    error match
      case WeirError.TaskFailed(step: ApplyStep, WeirError.Fatal(cause)) =>
        val file = step.sqlFile
        ApplyError.Fatal(file.name, step.line, cause, reading = false, Some(file.transactional))
      case WeirError.TaskFailed(_, cause) => cause
      case f: ApplyError.Fatal            => f.copy(transactional = transactional(f.file))
      case WeirError.Fatal(cause) =>
        val file = current.orElse(files.headOption)
        val name = file.fold("the SQL files")(_.name)
        ApplyError.Fatal(name, None, cause, reading = true, file.map(_.transactional))
      case other => other

  /** An applier on `session` with `settings`. */
  def create[F[_]: Async](session: PgSession[F], settings: ApplySettings): F[SqlApplier[F]] =
    spread(session, settings, Vector.empty)

  /** No file applied inside another ([[start]]'s `inside` for a plain apply). */
  private[weir] val noneInside: SqlFile => (List[SqlFile], List[SqlFile]) = _ => (Nil, Nil)

  /** How files are opened for reading: from their path (or standard input). */
  private val fromPath: SqlFile => InputStream = _.open()

  /** [[create]] with `more` sessions: each COPY body of a file applied without a transaction is
    * spread over all of them ([[ParallelCopy]]); everything else runs on `session`. A body with a
    * line longer than a chunk then fails with [[ApplyError.CopyLineTooLong]].
    */
  def spread[F[_]: Async](
      session: PgSession[F],
      settings: ApplySettings,
      more: Vector[PgSession[F]]
  ): F[SqlApplier[F]] =
    Async[F].delay(new SqlApplier(session, more, settings, fromPath))

  /** [[spread]] on a `session` the applier owns, as `weir apply-sql` owns its connection: a psql
    * `\connect` closes it, as psql's does, instead of leaving it open beside the new one (so that
    * the file can drop the database it started on, as `pg_dumpall --clean`'s does). The session is
    * of no use after such an apply.
    */
  private[weir] def owning[F[_]: Async](
      session: PgSession[F],
      settings: ApplySettings,
      more: Vector[PgSession[F]]
  ): F[SqlApplier[F]] =
    Async[F].delay(new SqlApplier(session, more, settings, fromPath, owned = true))

  /** [[spread]] reading each file's bytes from what `open` returns instead of its path (a test's
    * failing input); the stream is closed when the file's reading ends.
    */
  private[postgres] def reading[F[_]: Async](
      session: PgSession[F],
      settings: ApplySettings,
      open: SqlFile => InputStream
  ): F[SqlApplier[F]] =
    Async[F].delay(new SqlApplier(session, Vector.empty, settings, open))

  /** The bytes `files` hold, for an ETA; 0 (not known) when one is a pipe (standard input). */
  private def total(files: List[SqlFile]): Long =
    if files.exists(f => f.fromStandardInput && f.size == 0) then 0L else files.map(_.size).sum

  private def hex(bytes: Array[Byte]): String = bytes.map(b => f"${b & 0xff}%02x").mkString

  /** The position of character `position` (1-based, as the server counts: code points) of
    * `statement`.
    */
  private[postgres] def locate(statement: SqlPiece.Statement, position: Int): SqlPosition =
    val sql = statement.sql
    val end =
      if position - 1 >= sql.codePointCount(0, sql.length) then sql.length
      else sql.offsetByCodePoints(0, math.max(0, position - 1))
    val before = sql.substring(0, end)
    val lineStart = before.lastIndexOf('\n') + 1
    val column = before.codePointCount(lineStart, before.length)
    if lineStart == 0 then statement.at.copy(column = statement.at.column + column)
    else statement.at.copy(line = statement.at.line + before.count(_ == '\n'), column = column + 1)
