package weir.postgres

import cats.effect.{Async, Ref}
import cats.effect.syntax.all.*
import cats.syntax.all.*
import scala.concurrent.duration.*

/** The handler of an apply's run ([[SqlApplier.start]]): applies one [[ApplyStep]] on the session
  * and says what it applied ([[ApplyStep.Done]], for the [[ApplyRecorder]]). An interpreter over
  * [[ApplyState]] (the file being applied, what is done): the run calls it one step at a time, in
  * order (concurrency 1).
  *
  * '''Errors.''' A step that fails raises the original error: an [[ApplyError]] placed in the file
  * as closely as the server says, or the driver's error. The handler raises rather than returning
  * the error as a value so that fail-fast is the engine's own (nothing starts after it, the run's
  * outcome is `Failed`); [[SqlApplier]] takes off the engine's one `TaskFailed` naming the step.
  * With `ON_ERROR_STOP` off ([[ApplySettings.withStopAtError]]), a statement's failure in a file
  * applied without a transaction, on one connection, is said and gone past instead ([[pass]]).
  */
private[postgres] final class ApplyHandler[F[_]](
    session: PgSession[F],
    more: Vector[PgSession[F]],
    settings: ApplySettings,
    recorder: ApplyRecorder,
    beforeCommit: (SqlFile, String, FiniteDuration) => F[Unit],
    val state: Ref[F, ApplyState],
    parallel: Ref[F, Option[ParallelCopy[F]]],
    connected: Ref[F, (PgSession[F], F[Unit])],
    psql: PsqlState[F]
)(using F: Async[F]):
  import ApplyStep.Done

  private val placed = PlacedFailure(session.target)
  import placed.{failed, failedCopy}

  /** The session statements go to: `session`, or the one a psql `\connect` opened. */
  private def on: F[PgSession[F]] = connected.get.map(_._1)

  /** Closes the session a `\connect` opened, if any (after [[undo]]). */
  def disconnect: F[Unit] = connected.getAndSet((session, F.unit)).flatMap(_._2)

  /** After a failure, a stop or a cancellation (never while a step runs): drops a COPY in progress
    * and rolls back the open transaction. Errors are ignored (the connection may be gone).
    */
  def undo: F[Unit] =
    (parallel.getAndSet(None).flatMap(_.traverse_(_.abandon.attempt)) >> on.flatMap { session =>
      session.abandonCopy.attempt >> session.inTransaction.attempt.flatMap {
        case Right(true) => session.rollback.attempt.void
        case _           => F.unit
      }
    }).void

  /** Applies `step`. */
  def apply(step: ApplyStep): F[Done] = step match
    case ApplyStep.Begin(file)                   => begin(file)
    case ApplyStep.Run(file, statements)         => run(file, statements)
    case ApplyStep.Skip(file, statement)         => skip(file, statement)
    case ApplyStep.Unsent(_, statement, reason)  => unsent(statement, reason)
    case ApplyStep.Refuse(_, statement)          => refuse(statement)
    case ApplyStep.CopyStart(file, statement)    => copyStart(file, statement)
    case ApplyStep.CopyChunk(file, data)         => copyChunk(file, data)
    case ApplyStep.CopyFinish(file, end)         => copyFinish(file, end)
    case ApplyStep.Connect(_, c)                 => connect(c)
    case ApplyStep.Gexec(file, statement)        => gexec(file, statement)
    case ApplyStep.Gset(file, statement, prefix) => gset(file, statement, prefix)
    case ApplyStep.Results(_, _)                 => results
    case ApplyStep.Echo(_, echo)                 => echoed(echo)
    case ApplyStep.Finish(file, sha256, bytes)   => finish(file, sha256, bytes)

  /** A file's start: its clock, and its transaction when it runs in one. */
  private def begin(file: SqlFile): F[Done] =
    F.monotonic.flatMap(now => state.update(_.startFile(file, now))) >>
      on.flatMap(_.transaction(file.transactional)).as(Done.nothing)

  /** A group of statements: a failure is placed in the file and raised or gone past ([[pass]]). */
  private def run(file: SqlFile, statements: Vector[SqlPiece.Statement]): F[Done] =
    val sql = statements.map(_.sql)
    // Without a transaction, the first `n` committed, whatever comes after.
    def landed(n: Int) = F.whenA(n > 0)(state.update(_.statements(n, statements(n - 1).end)))
    // In a transaction the group is one round trip; without, each statement commits on its own.
    val sent = on.flatMap { session =>
      (if file.transactional then session.run(sql, settings.pipeline)
       else session.runEach(sql, landed)) <* noticed(session, statements)
    }
    F.delay(recorder.applying(statements.head.at)) >> sent.flatMap {
      case Right(rows) =>
        state
          .update(_.statements(statements.size, statements.last.end).counted(rows))
          .as(Done(Some(statements.last.end), statements.size, 0L, None))
      case Left(f) =>
        val failure = failed(file, statements(f.index), f.error, None, f.position)
        val rest = statements.drop(f.index + 1)
        // Gone past (or raised): the statements after it in the group are sent then.
        F.whenA(!file.transactional)(landed(f.index)) >>
          pass(file, statements(f.index).end, failure) >>
          (if rest.isEmpty then F.pure(Done(Some(statements.last.end), f.index, 0L, None))
           else run(file, rest).map(d => d.copy(statements = d.statements + f.index)))
    }

  /** A file's own BEGIN or COMMIT in a file applied in one transaction: not sent, said why. */
  private def skip(file: SqlFile, statement: SqlPiece.Statement): F[Done] =
    val word = statement.sql.trim.takeWhile(!_.isWhitespace).toUpperCase(java.util.Locale.ROOT)
    val warning =
      s"${statement.at.show}: the file's own $word was not sent: ${file.name} runs in one transaction, committed at its end (so a failure leaves nothing of it); --no-transaction runs it as written"
    // psql's ROW_COUNT after a BEGIN or COMMIT it sent.
    state
      .update(s => s.copy(warnings = s.warnings :+ warning).counted(0L))
      .as(Done(Some(statement.end), 0, 0L, None))

  /** A COPY's start, on the session or spread over the extra connections ([[ParallelCopy]]). */
  private def copyStart(file: SqlFile, statement: SqlPiece.Statement): F[Done] =
    val spread =
      more.nonEmpty && !file.transactional && ParallelCopy.parallelizable(statement.sql)
    F.delay(recorder.applying(statement.at)) >>
      state.update(_.copyAt(statement)) >>
      (if spread then
         ParallelCopy
           .start(session +: more, statement.sql)
           .flatMap(p => parallel.set(Some(p)))
           .adaptError(failedCopy(file, statement, lines = false))
       else
         on.flatMap(s => s.copyStart(statement.sql).guarantee(noticed(s, Vector(statement))))
           .adaptError(failedCopy(file, statement))
      )
        .handleErrorWith(passCopy(file, statement.end))
        .as(Done.nothing)

  /** A chunk of a COPY's body, its lines counted as sent. */
  private def copyChunk(file: SqlFile, data: SqlPiece.CopyData): F[Done] =
    (state.get, parallel.get).tupled.flatMap { (s, spread) =>
      s.copy.traverse_ { c =>
        spread match
          case None =>
            on.flatMap(_.copyData(data.bytes))
              .adaptError(failedCopy(file, c))
              .handleErrorWith(passCopy(file, c.end))
          case Some(p) =>
            // A chunk holds whole lines unless it ends inside one: a line cut because it is
            // longer than a chunk, or the body's last line, without a line break. Which one, the
            // next chunk or the body's end tells: until then the chunk is held back.
            if s.unbroken.nonEmpty then
              F.raiseError(ApplyError.CopyLineTooLong(c.at, settings.maxChunk))
            else if data.bytes.last.forall(_ == '\n'.toByte) then
              p.send(data).adaptError(failedCopy(file, c, lines = false))
            else state.update(_.copy(unbroken = Some(data)))
      } >> state.modify { now =>
        // A COPY gone past ([[pass]]) sends and counts no more of its body; the lines counted
        // as sent are taken back when it fails.
        val back = if s.copy.isDefined then -s.copyLines else 0L
        if now.copy.isEmpty then (now, Done(Some(data.end), 0, back, None))
        else
          val more = now.copy(copyLines = now.copyLines + data.rows)
          (more, Done(Some(data.end), 0, data.rows.toLong, None))
      }
    }

  /** A COPY's end: the server's count of its rows replaces the lines counted as sent. */
  private def copyFinish(file: SqlFile, end: SqlPiece.CopyEnd): F[Done] =
    (state.get, parallel.getAndSet(None)).tupled.flatMap {
      case (s, _) if s.copy.isEmpty => // gone past ([[pass]])
        state.update(_.copy(reached = end.end.bytes)).as(Done(Some(end.end), 0, 0L, None))
      case (s, spread) =>
        val copyEnd = s.copy.fold(F.pure(0L)) { c =>
          spread match
            case None =>
              on.flatMap(s => s.copyEnd.guarantee(noticed(s, Vector(c))))
                .adaptError(failedCopy(file, c))
            case Some(p) =>
              (s.unbroken.traverse_(p.send) >> p.finish)
                .adaptError(failedCopy(file, c, lines = false))
        }
        // Lines were counted as they were sent; the server's count is the truth.
        copyEnd
          .flatMap { rows =>
            state
              .update(_.copied(rows, end).counted(rows))
              .as(Done(Some(end.end), 1, rows - s.copyLines, None))
          }
          .handleErrorWith { e =>
            passCopy(file, end.end)(e).as(Done(Some(end.end), 0, -s.copyLines, None))
          }
    }

  /** psql's `\\connect`: the statements after it go to a new session on that database. */
  private def connect(c: SqlPiece.Connect): F[Done] =
    if more.nonEmpty then
      F.raiseError(
        SplitError.Unsupported(
          c.at,
          s"\\connect ${c.database} with --parallel-copy: the extra connections stay on the first database; apply this file without --parallel-copy"
        )
      )
    else
      val target = session.target.withDatabase(c.database)
      F.uncancelable { _ =>
        PgSession.open[F](target, PgSession.defaultApplication).allocated.flatMap { opened =>
          connected.getAndSet(opened).flatMap(_._2)
        }
      } >> (on.flatMap(_.psqlVariables), state.get).tupled
        .flatMap((vars, s) => psql.connected(vars, s.results))
        .as(Done(Some(c.end), 0, 0L, None))

  /** A statement not sent (said why). */
  private def unsent(statement: SqlPiece.Statement, reason: String): F[Done] =
    val warning = s"${statement.at.show}: ${statement.sql.trim} was not sent: $reason"
    state
      .update(s => s.copy(warnings = s.warnings :+ warning).counted(0L))
      .as(Done(Some(statement.end), 0, 0L, None))

  /** A file's own ROLLBACK in a file applied in one transaction: refused. */
  private def refuse(statement: SqlPiece.Statement): F[Done] =
    F.raiseError(
      ApplyError.OwnRollback(statement.at, statement.sql.linesIterator.nextOption().getOrElse(""))
    )

  /** psql's `\\echo`: its text said. */
  private def echoed(echo: SqlPiece.Echo): F[Done] =
    F.delay(recorder.echo(echo.text)).as(Done(Some(echo.end), 0, 0L, None))

  /** The results psql's variables wait for, given to them. */
  private def results: F[Done] = state.get.flatMap(s => psql.results(s.results)).as(Done.nothing)

  /** psql's `\\gset`: the statement's one row set as variables. A file's own BEGIN, COMMIT or
    * ROLLBACK that it ends, in a file applied in one transaction, finds no rows (as when a `;` ends
    * it: psql runs it, then finds none).
    */
  private def gset(file: SqlFile, statement: SqlPiece.Statement, prefix: String): F[Done] =
    if own(file, statement) != OwnTransaction.Kind.Send then
      F.raiseError(
        ApplyError.GsetFailed(
          statement.at,
          s"no rows returned: a file's own ${statement.sql.takeWhile(!_.isWhitespace)} returns none (not sent: ${file.name} runs in one transaction)",
          transactional = true,
          Option.when(statement.at.file != file.name)(file.name)
        )
      )
    else gsetSent(file, statement, prefix)

  private def gsetSent(file: SqlFile, statement: SqlPiece.Statement, prefix: String): F[Done] =
    // A failure gone past lets the source waiting for the variables go on, none set.
    def passed(error: Throwable) =
      pass(file, statement.end, error) >> state.get
        .flatMap(s => psql.results(s.results))
        .as(Done(Some(statement.end), 0, 0L, None))
    F.delay(recorder.applying(statement.at)) >> on.flatMap(resultOf(statement)).flatMap {
      case Left(f) => passed(failed(file, statement, f.error, None, f.position))
      case Right(result) =>
        PsqlGset.assign(prefix, result.columns, result.rows) match
          case Left(reason) =>
            val applying = Option.when(statement.at.file != file.name)(file.name)
            passed(ApplyError.GsetFailed(statement.at, reason, file.transactional, applying))
          case Right(assigned) =>
            val ignored = assigned.ignored.map { name =>
              s"${statement.at.show}: \\gset: column $name not set: psql's own setting, which psql ignores in a \\gset too"
            }
            state
              .updateAndGet(s =>
                s.statements(1, statement.end).copy(warnings = s.warnings ++ ignored).counted(1L)
              )
              .flatMap(s => psql.gset(assigned, s.results))
              .as(Done(Some(statement.end), 1, 0L, None))
    }

  /** A file's end: `beforeCommit` (where a migration is recorded), then its commit if it has one.
    */
  private def finish(file: SqlFile, sha256: String, bytes: Long): F[Done] =
    F.monotonic.flatMap { now =>
      state.get.flatMap { s =>
        val took = now - s.fileStart
        beforeCommit(file, sha256, took) >>
          (if file.transactional then on.flatMap(_.commit) else F.unit) >>
          state.update(_.finished(file, sha256, took, bytes)).as(Done(None, 0, 0L, Some(bytes)))
      }
    }

  private def own(file: SqlFile, statement: SqlPiece.Statement): OwnTransaction.Kind =
    if file.transactional then OwnTransaction.of(statement.sql) else OwnTransaction.Kind.Send

  /** psql's `\\gexec` ([[gexecSent]]). A file's own BEGIN, COMMIT or ROLLBACK that it ends, in a
    * file applied in one transaction, is skipped or refused as when a `;` ends it.
    */
  private def gexec(file: SqlFile, statement: SqlPiece.Statement): F[Done] =
    own(file, statement) match
      case OwnTransaction.Kind.Send   => gexecSent(file, statement)
      case OwnTransaction.Kind.Skip   => skip(file, statement)
      case OwnTransaction.Kind.Refuse => refuse(statement)

  /** psql's `\\gexec`: runs `statement`, then each value of its result as a statement (in the
    * file's transaction if it has one), in order; a failed one is placed at the `\\gexec`
    * statement.
    */
  private def gexecSent(file: SqlFile, statement: SqlPiece.Statement): F[Done] =
    F.delay(recorder.applying(statement.at)) >> on.flatMap { session =>
      resultOf(statement)(session).flatMap {
        case Left(f) =>
          pass(file, statement.end, failed(file, statement, f.error, None, f.position))
            .as(Done(Some(statement.end), 0, 0L, None))
        case Right(result) =>
          for
            before <- state.get.map(_.fileStatements)
            _ <- landedOne
            _ <- result.rows.flatMap(_.flatten).traverse_(generated(file, statement, session, _))
            // psql's ROW_COUNT after a \gexec: its own query's rows.
            after <- state.updateAndGet(
              _.copy(reached = statement.end.bytes).counted(result.rows.size.toLong)
            )
          // The statements sent: a generated BEGIN or COMMIT, not sent, is not one.
          yield Done(Some(statement.end), (after.fileStatements - before).toInt, 0L, None)
      }
    }

  /** One statement `sql` that the `\\gexec` `statement` generated: sent, and counted as it lands
    * (without a transaction, a later failure leaves it applied); in a file's transaction a
    * generated BEGIN, COMMIT or ROLLBACK is its own, as written.
    */
  private def generated(
      file: SqlFile,
      statement: SqlPiece.Statement,
      session: PgSession[F],
      sql: String
  ): F[Unit] =
    val named: SqlPiece.Statement = statement.copy(sql = s"\\gexec: $sql")
    val said = statement.resultTo.contains(SqlPiece.ResultTo.Statements(echo = true))
    val kind = if file.transactional then OwnTransaction.of(sql) else OwnTransaction.Kind.Send
    kind match
      case OwnTransaction.Kind.Send =>
        val sent =
          (if file.transactional then session.run(Vector(sql), 1)
           else session.runEach(Vector(sql))) <* noticed(session, Vector(statement))
        F.delay(recorder.echo(sql)).whenA(said) >> sent.flatMap {
          case Right(_) => landedOne
          case Left(f)  => pass(file, statement.end, failed(file, named, f.error, None, None))
        }
      case OwnTransaction.Kind.Skip   => skip(file, statement.copy(sql = sql)).void
      case OwnTransaction.Kind.Refuse => refuse(named).void

  /** A statement's failure `error` in `file`, ending at `end`: with `ON_ERROR_STOP` off, in a file
    * without a transaction, on one connection ([[ApplySettings.withStopAtError]]), said and counted
    * ([[ApplyState.passed]]) and gone past; raised otherwise, and for any other error (a lost
    * connection).
    */
  private def pass(file: SqlFile, end: Mark, error: Throwable, variables: Boolean = true): F[Unit] =
    val failure = error match
      case e: ApplyError.StatementFailed =>
        Some((e.passed, Option.when(variables)((e.server.sqlState, e.server.message))))
      case e: ApplyError.GsetFailed => Some((e.passed, None))
      case _                        => None
    failure.filter(_ => !settings.stopAtError && !file.transactional && more.isEmpty) match
      case Some((said, last)) => F.delay(recorder.echo(said)) >> state.update(_.passed(last, end))
      case None               => F.raiseError(error)

  /** A COPY's failure gone past ([[pass]]): the COPY is dropped and the rest of its body not sent;
    * psql's variables stay as they were, as psql 15 leaves them ([[PsqlResults]]).
    */
  private def passCopy(file: SqlFile, end: Mark)(error: Throwable): F[Unit] =
    pass(file, end, error, variables = false) >> (on, state.get).tupled.flatMap { (session, s) =>
      session.abandonCopy.attempt >> s.copy.traverse_(c => noticed(session, Vector(c)))
    } >> state.update(_.copy(copy = None, copyLines = 0))

  /** `statement`'s result on `session` ([[PgSession.result]]), its notices said. */
  private def resultOf(statement: SqlPiece.Statement)(session: PgSession[F]) =
    session.result(statement.sql) <* noticed(session, Vector(statement))

  /** The server's notices for `statements` just run on `session` ([[PgSession.notices]]), said at
    * their statements, as psql prints them (`t.sql:3:1: NOTICE: migrated 5 rows`).
    */
  private def noticed(session: PgSession[F], statements: Vector[SqlPiece.Statement]): F[Unit] =
    F.delay(session.notices().foreach { (i, text) =>
      recorder.echo(s"${statements(math.min(i, statements.size - 1)).at.show}: $text")
    })

  private val landedOne: F[Unit] = state.update(s => s.copy(fileStatements = s.fileStatements + 1))
