package weir.cli.applysql

import cats.effect.{ExitCode, IO, Resource}
import cats.syntax.all.*
import com.monovore.decline.Opts
import scala.concurrent.duration.*
import scala.util.chaining.*
import java.nio.file.{Files, Path}
import weir.cli.common.{Args, Console, Interrupts, Invocation, Output, PasswordPrompt}
import weir.postgres.{
  ApplyError,
  ApplyRecorder,
  ApplyReport,
  MigrationSet,
  MigrationSettings,
  Migrations,
  PgSession,
  SqlApplier,
  SqlFile,
  SqlPiece,
  TransactionCheck
}
import weir.ConfigError
import weir.runtime.RuntimePreset

/** `weir apply-sql`: stream SQL files into PostgreSQL, or apply a directory of migrations.
  *
  * Flow: options → [[ApplySqlPlan]] → connect ([[PgSession]]; exit 2 when that fails) → the files
  * or the pending migrations through [[SqlApplier]] (one run of the engine: Ctrl-C stops it,
  * [[ApplySqlView]] and the report's timeline read its [[weir.postgres.ApplyRecorder]]) →
  * [[ApplySqlReport]] → [[ApplySqlRender]] on stdout (or the HTML page; `--report FILE.html` writes
  * it beside), the error in full on stderr. Exit 0 done, 1 a statement failed (or the report file
  * could not be written), 2 bad input or no connection, 3 a fatal error of the JVM (out of memory:
  * the file rolled back, [[weir.cli.common.FatalExit]]), 130 interrupted (Ctrl-C rolls the current
  * file back and cancels its statement on the server; a second Ctrl-C quits at once).
  */
object ApplySqlCommand:

  val opts: Opts[Invocation => IO[ExitCode]] =
    Opts.subcommand(
      "apply-sql",
      """Apply SQL files (or standard input: -) to PostgreSQL as psql -1 -f would, streaming: statements in order on one connection, COPY ... FROM STDIN bodies sent in 256 KB chunks, the next statements read and split while the server works (--prefetch). Each FILE runs in one transaction: a failure leaves nothing of it. psql's \i, \ir, \copy ... from FILE, \set (and -v), \gset, \gexec, \echo, \if, \connect, \getenv and \q lines are followed, as psql follows them. Errors name file:line:column, the SQLSTATE and the server's message. Or --migrations DIR: apply the migrations not applied yet (Flyway's V<version>__x.sql and R__x.sql names too, taking over what flyway_schema_history records), recorded with their SHA-256.
        |
        |Examples:
        |  weir apply-sql dump.sql --url postgresql://me@localhost:5432/db
        |  PGHOST=localhost PGDATABASE=db weir apply-sql schema.sql data.sql
        |  pg_dump src | weir apply-sql - --url postgresql://me@localhost/copy    standard input, streamed as it comes
        |  weir apply-sql --no-transaction reindex.sql      statements that cannot run in a transaction
        |  weir apply-sql -v schema=app -f setup.sql        psql's variables: :schema, :'schema', :"schema"
        |  weir apply-sql --migrations db/migrations --status    applied, pending, changed, missing
        |  weir apply-sql --migrations db/migrations --dry-run   the statements it would send
        |  weir apply-sql --migrations db/migration --baseline 3 a database never migrated: up to 3 counts as applied
        |  weir apply-sql big.sql --report apply.html      the summary, and a page with MB/s over time
        |
        |Exit: 0 applied, 1 a statement failed (with -v ON_ERROR_STOP=0: one or more, gone past) or the connection was lost (or the --report file could not be written), 2 bad input or no connection, 3 out of memory or another fatal error of the JVM (the file rolled back; give the JVM more heap: JAVA_OPTS=-Xmx256m), 130 interrupted (Ctrl-C rolls the current file back, or with --no-transaction stops it there; a second Ctrl-C quits at once).""".stripMargin
    )(ApplySqlOptions.opts(sys.env).map(plan => run(plan, _)))

  def run(plan: ApplySqlPlan, invocation: Invocation): IO[ExitCode] =
    val program = execute(plan)
    val onRuntime = plan.runtime match
      case RuntimePreset.WorkStealing => program // the command's own runtime already is one
      case other                      => other.run(program)
    onRuntime.flatMap { report =>
      val error = report match
        case ApplySqlReport.Applied(r, _, _, _) =>
          r.outcome match
            case ApplyReport.Outcome.Failed(e) => Some(e.getMessage)
            case _                             => None
        case ApplySqlReport.Refused(e) => Some(e.getMessage)
        case _                         => None
      val page = ApplySqlPage(report, ApplySqlRender.json(report), _)
      val summary = quietly(plan, report) match
        case Some(warnings) => warnings.traverse_(w => Console.error(s"warning: $w")).as(true)
        case None => plan.output.emit("weir apply-sql", invocation, ApplySqlRender(_, report), page)
      error.traverse_(e => Console.error(s"weir apply-sql: $e")) >>
        summary.map { written =>
          if written || report.exitCode != 0 then ExitCode(report.exitCode) else ExitCode(1)
        }
    }

  /** With psql's `-q`, when everything applied and the summary would be plain text on stdout: no
    * summary, only its warnings (for stderr). `None`: the summary as ever.
    */
  private def quietly(plan: ApplySqlPlan, report: ApplySqlReport): Option[List[String]] =
    report match
      case ApplySqlReport.Applied(r, _, warnings, _)
          if plan.quiet && report.exitCode == 0 &&
            plan.output == Output(Output.Stdout.Plain(Args.Format.Text), None) =>
        Some(r.warnings ++ warnings)
      case _ => None

  /** Connects and applies as `plan` says; every outcome is a report. */
  def execute(plan: ApplySqlPlan): IO[ApplySqlReport] =
    ctrlC.use { pressed =>
      val target =
        if plan.askPassword then
          PasswordPrompt
            .ask(plan.target)
            .flatMap(_.leftMap(ConfigError.Invalid("-W", _)).liftTo[IO])
        else IO.pure(plan.target)
      Resource
        .eval(target)
        .flatMap(PgSession.open[IO](_, application))
        .use { session =>
          plan.input match
            case ApplySqlPlan.Input.Files(paths) =>
              paths.traverse(read).flatMap { found =>
                found.sequence match
                  case Left(problem) =>
                    // A directory may be meant as migrations: say how.
                    val hint = problem match
                      case ConfigError.Unreadable(_, path, _) if Files.isDirectory(Path.of(path)) =>
                        s" (--migrations $path)"
                      case _ => ""
                    IO.pure(
                      ApplySqlReport.Refused(ApplyError.BadMigrations(problem.getMessage + hint))
                    )
                  case Right(files) =>
                    val chosen =
                      if plan.singleTransaction && files.size > 1 then List(together(files))
                      else if plan.settings.transactions then files
                      else files.map(_.withoutTransaction)
                    apply(plan, session, chosen, pressed)
                      .map((r, timeline) => ApplySqlReport.Applied(r, None, Nil, timeline))
              }
            case ApplySqlPlan.Input.Commands(texts) =>
              commands(texts, plan.settings.transactions).flatMap { files =>
                apply(plan, session, files, pressed)
                  .map((r, timeline) => ApplySqlReport.Applied(r, None, Nil, timeline))
              }
            case ApplySqlPlan.Input.Migrations(dirs, mode, settings) =>
              Migrations.load[IO](dirs).flatMap {
                case Left(error) => IO.pure(ApplySqlReport.Refused(error))
                case Right(set) =>
                  mode match
                    case ApplySqlPlan.MigrationMode.DryRun => dry(session, set, settings)
                    case ApplySqlPlan.MigrationMode.Status =>
                      Migrations.status[IO](session, set, settings).map {
                        case Left(error) => ApplySqlReport.Refused(error)
                        case Right(st)   => ApplySqlReport.Status(session.target.show, st)
                      }
                    case ApplySqlPlan.MigrationMode.Apply =>
                      // Flyway's createSchemas: the schema its configuration names, made first.
                      plan.createSchema.traverse_(s =>
                        session.update(s"CREATE SCHEMA IF NOT EXISTS \"$s\"")
                      ) >> migrate(plan, session, set, settings, pressed)
              }
        }
        // No connection (exit 2), or weir's own bookkeeping failed before anything was applied.
        .handleError(ApplySqlReport.Refused(_))
        .map(_.inCommandWords)
    }

  // psql's -c texts as files, each in a transaction (psql's one query string is one), unless it is
  // one statement that cannot run in one (CREATE DATABASE, VACUUM: psql runs a -c of one statement
  // alone); none with --no-transaction.
  private def commands(texts: List[String], transactions: Boolean): IO[List[SqlFile]] =
    texts.zipWithIndex.traverse { (text, i) =>
      val name = if texts.size == 1 then "<command>" else s"<command ${i + 1}>"
      val file = SqlFile.text(name, text)
      val alone = file.pieces[IO].take(2).compile.toList.map {
        case List(SqlPiece.Statement(sql, _, _, false, _, _, _)) =>
          TransactionCheck.refusedInTransaction(sql)
        case _ => false
      }
      alone
        .handleError(_ => false)
        .map(a => if transactions && !a then file else file.withoutTransaction)
    }

  // psql's -1 over several files: one file that includes them all in order (psql's \i), so that
  // they run in its one transaction, their errors still at their own file and line.
  private def together(files: List[SqlFile]): SqlFile =
    val includes = files.map { f =>
      s"\\i '${f.path.toString.replace("\\", "\\\\").replace("'", "''")}'\n"
    }.mkString
    val file = SqlFile.text(files.map(_.name).mkString(" + "), includes)
    file.copy(size = file.size + files.map(_.size).sum) // what will be read, for progress

  // A FILE to apply: standard input for -, else the file at its path.
  private def read(path: Path): IO[Either[ConfigError, SqlFile]] =
    if path == ApplySqlPlan.StandardInput then SqlFile.standardInput[IO].map(Right(_))
    else SqlFile.at[IO](path)

  // The connections' application_name, as pg_stat_activity shows them.
  private val application = "weir apply-sql"

  // Ctrl-C: the first stops the apply's run (its file rolled back), the second quits (see
  // Interrupts.rollingBack).
  private val ctrlC: Resource[IO, IO[Unit]] = Interrupts.rollingBack

  private def apply(
      plan: ApplySqlPlan,
      session: PgSession[IO],
      files: List[SqlFile],
      ctrlC: IO[Unit],
      beforeCommit: Option[(SqlFile, String, FiniteDuration) => IO[Unit]] = None,
      inside: SqlFile => (List[SqlFile], List[SqlFile]) = SqlApplier.noneInside
  ): IO[(ApplyReport, Vector[ApplyRecorder.Point])] =
    // With --parallel-copy N, N - 1 more connections for the COPY bodies.
    (1 until plan.connections).toVector
      .traverse(_ => PgSession.open[IO](plan.target, application))
      .use { more =>
        // The command's own connection: a psql \connect closes it, as psql's does.
        SqlApplier.owning[IO](session, plan.settings, more).flatMap { applier =>
          // One run: Ctrl-C is its stop; the view, the JSON and the page read its recorder.
          applier.start(files, beforeCommit, inside).use { applying =>
            ApplySqlView
              .resource(applying, plan.live)
              .surround(applying.reportStoppingOn(ctrlC))
              .map(report => (report, applying.progress.points))
          }
        }
      }

  private def dry(
      session: PgSession[IO],
      set: MigrationSet,
      settings: MigrationSettings
  ): IO[ApplySqlReport] =
    Migrations.plan[IO](session, set, settings).flatMap {
      case Left(error) => IO.pure(ApplySqlReport.Refused(error))
      case Right(p) =>
        session.psqlVariables
          .flatMap { vars =>
            p.files.traverse(f => statements(f.file, vars).map((f, _)))
          }
          .map { files =>
            ApplySqlReport.DryRun(
              session.target.show,
              files.map((f, listed) =>
                ApplySqlReport.Pending(
                  f.fileName,
                  f.file.size,
                  f.file.transactional,
                  f.version.map(_.toString),
                  listed.sql,
                  listed.rows,
                  callback = f.kind == "callback",
                  inside = p.inside(f.file).pipe((before, after) => (before ++ after).map(_.name)),
                  notes = listed.notes
                )
              ),
              p.applied,
              p.warnings
            )
          }
    }

  // What a dry run lists of a migration: its statements, the rows of its COPY bodies, and notes.
  private final case class Listed(sql: List[String], rows: Long, notes: List[String]):
    def add(piece: SqlPiece): Listed = piece match
      case s: SqlPiece.Statement =>
        val where = s"${s.at.file}:${s.at.line}"
        val note = s.resultTo.map {
          case SqlPiece.ResultTo.Variables(_) =>
            s"the rest of the file is not listed: it depends on the row of the \\gset at $where, which a dry run does not read"
          case SqlPiece.ResultTo.Statements(_) =>
            s"the statements the \\gexec at $where would run are not listed: a dry run does not run it"
        }
        Listed(s.sql :: sql, rows, notes ++ note)
      case d: SqlPiece.CopyData => copy(rows = rows + d.rows)
      case r: SqlPiece.Results =>
        val note =
          s"the rest of the file is not listed: it reads psql's ROW_COUNT, ERROR or SQLSTATE at ${r.at.file}:${r.at.line}, set by running the statement before it, which a dry run does not do"
        copy(notes = notes :+ note)
      case _ => this

  // The statements of `file` as they would be sent (psql's variables replaced: `vars`, the
  // connection's, and those the file sets), up to a \gset, whose row a dry run does not read,
  // or a line that reads the result of the statement before it.
  private def statements(file: SqlFile, vars: Map[String, String]): IO[Listed] =
    file
      .interpolated[IO](vars)
      .takeThrough {
        case s: SqlPiece.Statement =>
          !s.resultTo.exists(_.isInstanceOf[SqlPiece.ResultTo.Variables])
        case _: SqlPiece.Results => false
        case _                   => true
      }
      .fold(Listed(Nil, 0L, Nil))(_.add(_))
      .compile
      .lastOrError
      .map(l => l.copy(sql = l.sql.reverse))

  private def migrate(
      plan: ApplySqlPlan,
      session: PgSession[IO],
      set: MigrationSet,
      settings: MigrationSettings,
      ctrlC: IO[Unit]
  ): IO[ApplySqlReport] =
    val waiting = Console.error(
      "weir apply-sql: another run holds the migrations lock on this database; waiting for it"
    )
    Migrations.withLock[IO, ApplySqlReport](session, waiting, settings.history) {
      Migrations.plan[IO](session, set, settings).flatMap {
        case Left(error) => IO.pure(ApplySqlReport.Refused(error))
        case Right(p) =>
          Migrations.baseline[IO](session, settings).flatMap {
            case Left(error) => IO.pure(ApplySqlReport.Refused(error))
            case Right(_) =>
              val record = Migrations.recording[IO](session, p, settings.history)
              apply(plan, session, p.files.map(_.file), ctrlC, Some(record), p.inside).flatMap {
                (r, timeline) =>
                  Migrations.afterFailure[IO](session, p, r).map { more =>
                    val warnings = p.warnings ++ more
                    ApplySqlReport.Applied(inMigrationWords(r), Some(p.applied), warnings, timeline)
                  }
              }
          }
      }
    }

  // A statement refused in a transaction names the migration's marker, not --no-transaction.
  private def inMigrationWords(r: ApplyReport): ApplyReport = r.outcome match
    case ApplyReport.Outcome.Failed(e: ApplyError.StatementFailed) if e.withoutTransactionHelps =>
      val text = e.describe(s"make '${Migrations.noTransactionMarker}' the migration's first line")
      r.copy(outcome = ApplyReport.Outcome.Failed(ApplySqlReport.Worded(text, e)))
    case _ => r
