package weir.postgres

import cats.effect.Async
import cats.syntax.all.*
import java.nio.file.Path
import scala.concurrent.duration.FiniteDuration
import weir.Fatal

/** A directory of migrations, each applied once and recorded in `weir.migrations` (name, SHA-256,
  * applied at, duration, kind, version, Flyway's checksum) in the transaction that applied it.
  *
  * '''Names.''' Flyway's (`V<version>__<description>.sql` in version order, 1 < 1.1 < 2 < 10, then
  * `R__<description>.sql`, applied again whenever they change; `U...` undo files ignored) or weir's
  * (any other `*.sql`, in name order); a directory holds one kind ([[MigrationSet]]).
  *
  * '''Taking over from Flyway.''' When Flyway's history table (`flyway_schema_history`) exists,
  * what it records as applied is never run again: its versions, its baseline (every version up to
  * it), its repeatables while their checksum is the one it recorded. A failed row there stops the
  * run. weir records what it applies in its own table only, not in Flyway's.
  *
  * '''Checks before anything is applied.''' An applied migration whose file changed (weir's
  * SHA-256, or Flyway's checksum for what Flyway applied), two files with one version, a malformed
  * Flyway name, a file that is not UTF-8, and a statement that cannot run in a transaction in a
  * migration that runs in one stop the run with a `Left` that names the file.
  *
  * A file runs in a transaction of its own unless its first line is `-- weir: no-transaction`. A
  * session-level advisory lock, taken before anything is read and released when the call that took
  * it ends (returns, fails or is cancelled), keeps two concurrent runs from applying the same
  * migrations: the second waits, then finds them applied.
  *
  * '''One call.''' [[migrate]] does all of it from a [[Migrations.Source]] (a directory, or files
  * on the class path, as weir ships its queue's schema), with one error channel: every failure,
  * including the driver's while taking the lock or reading what is applied, is a `Left`.
  */
object Migrations:

  /** The first line that makes a migration run without a transaction. */
  val noTransactionMarker: String = "-- weir: no-transaction"

  /** The advisory lock's key (one for every weir migrations run on a database). */
  val lockKey: Long = 0x7765697200000001L

  /** Flyway's SQL callbacks that weir runs, at Flyway's events and in Flyway's order (FlywaySuite
    * compares them with Flyway's own run), once weir's checks have passed:
    *   - `beforeValidate`, `afterValidate`, then `beforeMigrate`, before the pending migrations;
    *   - `beforeEachMigrate` and `afterEachMigrate` around each pending migration, inside its
    *     transaction;
    *   - `afterVersioned` after the versioned migrations, `beforeRepeatables` before the repeatable
    *     ones (when some are pending);
    *   - `afterMigrateApplied` (when at least one migration was applied), then `afterMigrate`;
    *   - `afterMigrateError` after a failed run, the failed migration rolled back.
    *
    * All but the "each" ones run on every run, with nothing pending too, each in a transaction of
    * its own (unless its first line says otherwise). None is recorded; each has its placeholders
    * replaced. Other callbacks are refused ([[MigrationSet.load]]): `afterEachMigrateError`, which
    * Flyway runs inside the failed migration's transaction where PostgreSQL runs no statement, and
    * the events of Flyway's other commands.
    */
  val callbackEvents: List[String] = List(
    "beforeValidate",
    "afterValidate",
    "beforeMigrate",
    "beforeEachMigrate",
    "afterEachMigrate",
    "afterVersioned",
    "beforeRepeatables",
    "afterMigrateApplied",
    "afterMigrate",
    "afterMigrateError"
  )

  /** What a run would apply (in order), how many migrations it found applied, and its warnings;
    * with the callbacks that run around the pending migrations (see [[callbackEvents]]).
    */
  final case class Plan(
      pending: List[MigrationFile],
      applied: Int,
      warnings: List[String],
      before: List[MigrationFile] = Nil,
      after: List[MigrationFile] = Nil,
      afterVersioned: List[MigrationFile] = Nil,
      beforeRepeatables: List[MigrationFile] = Nil,
      beforeEach: List[MigrationFile] = Nil,
      afterEach: List[MigrationFile] = Nil,
      onError: List[MigrationFile] = Nil
  ):
    /** Every file the run applies in a transaction of its own, in order: callbacks before, the
      * versioned migrations, `afterVersioned`, `beforeRepeatables` and the repeatable ones,
      * callbacks after.
      */
    def files: List[MigrationFile] =
      val (versioned, repeatable) = pending.span(_.kind != "repeatable")
      val beforeThem = if repeatable.isEmpty then Nil else beforeRepeatables
      before ++ versioned ++ afterVersioned ++ beforeThem ++ repeatable ++ after

    /** Every file the run may apply: [[files]], the callbacks run inside each migration's
      * transaction and those run after a failure.
      */
    def all: List[MigrationFile] = files ++ beforeEach ++ afterEach ++ onError

    /** The callbacks applied inside `file`'s transaction, before and after it: a pending
      * migration's `beforeEachMigrate` and `afterEachMigrate`, in its transaction mode.
      */
    def inside(file: SqlFile): (List[SqlFile], List[SqlFile]) =
      if !pending.exists(_.file.name == file.name) then (Nil, Nil)
      else
        def as(callbacks: List[MigrationFile]) =
          callbacks.map(_.file.copy(transactional = file.transactional))
        (as(beforeEach), as(afterEach))

  /** What [[run]] did: the apply of the pending migrations (its outcome says whether each was
    * applied: a failed or interrupted apply is a `Result` too), how many migrations were recorded
    * as applied before, and the plan's warnings.
    */
  final case class Result(report: ApplyReport, alreadyApplied: Int, warnings: List[String])

  /** The migrations in `dir`, in the order they apply; `Left` when it is not a readable directory
    * or its files are not usable (see [[MigrationSet.load]]). Reads every file once, on the
    * blocking pool. A fatal error while reading (out of memory: a first line larger than the heap)
    * is raised as [[weir.WeirError.Fatal]].
    */
  def load[F[_]: Async](dir: Path): F[Either[ApplyError, MigrationSet]] =
    Fatal.blocking(MigrationSet.load(dir))

  /** The migrations in `dirs` taken together, as Flyway takes several locations (see
    * [[MigrationSet]]): one order over all of them, each file named by its path under its own
    * directory; otherwise as [[load]].
    */
  def load[F[_]: Async](dirs: List[Path]): F[Either[ApplyError, MigrationSet]] =
    Fatal.blocking(MigrationSet.load(dirs))

  /** The schema of weir's bookkeeping table (`weir.migrations`) unless told otherwise: a queue in a
    * schema of its own keeps its record there (`weir.postgres.queue.QueueSchemaName`).
    */
  val defaultHistory: String = "weir"

  /** Runs `body` holding the migrations' lock, calling `waiting` first when another run holds it;
    * weir's bookkeeping table is created (or given its newer columns) first if needed, under the
    * lock: two first runs must not both create it. The lock is released when `body` ends, however
    * it ends; the session is left in autocommit. Driver errors are raised.
    */
  def withLock[F[_]: Async, A](
      session: PgSession[F],
      waiting: F[Unit],
      history: String = defaultHistory
  )(body: F[A]): F[A] =
    val lock = session.transaction(on = false) >>
      session.query("SELECT pg_try_advisory_lock(?::bigint)", lockKey.toString).flatMap { rows =>
        if rows.headOption.flatMap(_.headOption).flatten.contains("t") then Async[F].unit
        else waiting >> session.query("SELECT pg_advisory_lock(?::bigint)", lockKey.toString).void
      }
    // A file that failed left its transaction rolled back; a lost session has lost its lock too.
    val unlock = (session.transaction(on = false) >>
      session.query("SELECT pg_advisory_unlock(?::bigint)", lockKey.toString)).attempt.void
    Async[F].bracket(lock)(_ => MigrationHistory.prepare(session, history) >> body)(_ => unlock)

  /** Where each migration of `set` stands on `session`'s database (weir's record and Flyway's, and
    * the baseline `settings` asks for on a database never migrated). Reads without writing; `Left`
    * when Flyway recorded a failed migration. Driver errors are raised.
    */
  def status[F[_]: Async](
      session: PgSession[F],
      set: MigrationSet,
      settings: MigrationSettings = MigrationSettings.default
  ): F[Either[ApplyError, MigrationStatus]] = prepared(session, set, settings).map(_.map(_._2))

  // `set` with its placeholders to replace (FlywayPlaceholders.prepare), and where it stands.
  private def prepared[F[_]: Async](
      session: PgSession[F],
      set: MigrationSet,
      settings: MigrationSettings
  ): F[Either[ApplyError, (MigrationSet, MigrationStatus)]] =
    FlywayPlaceholders.prepare(session, set, settings).flatMap {
      case Left(e) => Async[F].pure(Left(e))
      case Right(prepared) =>
        (
          MigrationHistory.read(session, settings.history),
          FlywayHistory.read(session, settings.flywayTable)
        ).mapN { (weir, flyway) =>
          // A baseline asked for on a database never migrated: as it will be recorded.
          val asked =
            settings.baseline.filter(_ => weir.isEmpty && flyway.isEmpty).toList.map { v =>
              MigrationHistory
                .Row(MigrationHistory.baselineName, "", "", "baseline", Some(v.toString), None)
            }
          MigrationStatus
            .of(prepared, weir ++ asked, flyway, settings.flywayTable)
            .map(prepared -> _)
        }
    }

  /** The plan for `set`: what is pending, in order, each file with its Flyway placeholders to
    * replace (in a directory of Flyway's names: see [[MigrationSettings.placeholders]]); `Left`
    * when an applied migration changed, Flyway recorded a failure, a pending migration has a
    * placeholder with no value, or one that runs in a transaction has a statement that cannot
    * ([[TransactionCheck]]). Reads without writing (a dry run may call it without the lock).
    */
  def plan[F[_]: Async](
      session: PgSession[F],
      set: MigrationSet,
      settings: MigrationSettings = MigrationSettings.default
  ): F[Either[ApplyError, Plan]] =
    Migrations.prepared(session, set, settings).flatMap {
      case Left(e) => Async[F].pure(Left(e))
      case Right((prepared, s)) =>
        s.refusal match
          case Some(e) => Async[F].pure(Left(e))
          case None =>
            def at(event: String) = prepared.callbacksAt(event)
            val plan = Plan(
              s.pending,
              s.applied,
              s.warnings,
              at("beforeValidate") ++ at("afterValidate") ++ at("beforeMigrate"),
              // Flyway runs afterMigrateApplied before afterMigrate (FlywaySuite compares).
              (if s.pending.isEmpty then Nil else at("afterMigrateApplied")) ++ at("afterMigrate"),
              at("afterVersioned"),
              at("beforeRepeatables"),
              at("beforeEachMigrate"),
              at("afterEachMigrate"),
              at("afterMigrateError")
            )
            FlywayPlaceholders.unknown(plan.all).flatMap {
              case Some(e) => Async[F].pure(Left(e))
              case None =>
                plan.all
                  .collectFirstSomeM(f => TransactionCheck.check[F](f.file))
                  .map(_.toLeft(plan))
            }
    }

  /** Records `version` as the baseline when `settings` asks for one, under the lock: on a database
    * with no migration recorded (by weir or Flyway), or one with this very baseline (nothing to
    * do); `Left` otherwise. Driver errors are raised.
    */
  def baseline[F[_]: Async](
      session: PgSession[F],
      settings: MigrationSettings
  ): F[Either[ApplyError, Unit]] = settings.baseline match
    case None => Async[F].pure(Right(()))
    case Some(version) =>
      (
        MigrationHistory.read(session, settings.history),
        FlywayHistory.read(session, settings.flywayTable)
      ).tupled.flatMap { (weir, flyway) =>
        val same = weir.exists(r => r.kind == "baseline" && r.version.contains(version.toString))
        if same then Async[F].pure(Right(()))
        else if weir.isEmpty && flyway.isEmpty then
          MigrationHistory.baseline(session, version, settings.history).as(Right(()))
        else
          val where =
            if weir.nonEmpty then MigrationHistory.table(settings.history) else settings.flywayTable
          Async[F].pure(
            Left(
              ApplyError.BadMigrations(
                s"baseline $version: $where already records migrations; a baseline is for a database never migrated (run without it)"
              )
            )
          )
      }

  /** Where migrations come from: a directory of `*.sql` files, or named files under a directory of
    * the class path (as weir ships its queue's schema: see `weir.postgres.queue.QueueSchema`).
    */
  enum Source:
    /** The `*.sql` files of `path` (see [[load]]). */
    case Directory(path: Path)

    /** The `*.sql` files of `paths` together, as Flyway's locations (see [[load]]). */
    case Directories(paths: List[Path])

    /** The files `names` under `resourceDir` on the class path (Flyway's names or weir's). */
    case Classpath(resourceDir: String, names: List[String])

  /** The one call: applies what is pending of `source` on `session` ([[run]] under [[withLock]]),
    * the lock released when it returns. `waiting` is called first when another run holds the lock;
    * when `stop` completes, the apply is stopped at once (the statement running cancelled on the
    * server, its file rolled back; the result's outcome says so).
    *
    * '''Errors.''' One channel: a source that cannot be read, a bad file name, two files with one
    * version, a file not UTF-8, an applied migration that changed, a statement that cannot run in
    * its migration's transaction, a failed Flyway migration, a lost connection or any driver error
    * in weir's bookkeeping is a `Left`, with nothing applied; a migration that fails on the server
    * is a `Right` whose `report.outcome` says which statement failed and why (migrations before it
    * stay applied). Cancelling the call cancels the statement running and releases the lock.
    */
  def migrate[F[_]: Async](
      session: PgSession[F],
      source: Source,
      settings: MigrationSettings,
      waiting: F[Unit],
      stop: F[Unit]
  ): F[Either[ApplyError, Result]] =
    def applyDirectories(dirs: List[Path]) = load[F](dirs).flatMap {
      case Left(e) => Async[F].pure(Left(e))
      case Right(set) =>
        withLock(session, waiting, settings.history)(run[F](session, set, stop, settings))
    }
    val applied = source match
      case Source.Directory(dir)    => applyDirectories(List(dir))
      case Source.Directories(dirs) => applyDirectories(dirs)
      case Source.Classpath(resourceDir, names) =>
        ClasspathFiles.directory[F](resourceDir, names).use(d => applyDirectories(List(d)))
    applied.handleError(e => Left(ApplyError.bookkeeping(session.target.show, e)))

  /** [[migrate]] with weir's record in `<history>.migrations`. */
  def migrate[F[_]: Async](
      session: PgSession[F],
      source: Source,
      waiting: F[Unit],
      stop: F[Unit],
      history: String = defaultHistory
  ): F[Either[ApplyError, Result]] =
    migrate(session, source, MigrationSettings.default.withHistory(history), waiting, stop)

  /** [[migrate]] with the default settings, no wait message and no stop. */
  def migrate[F[_]: Async](session: PgSession[F], source: Source): F[Either[ApplyError, Result]] =
    migrate(session, source, MigrationSettings.default, Async[F].unit, Async[F].never)

  /** Applies the migrations of `set` not applied yet, in order, on `session`, which must hold the
    * lock ([[withLock]]; [[migrate]] does both): [[plan]], the [[baseline]] if `settings` ask for
    * one, then each pending file through a [[SqlApplier]], recorded in its own transaction. `Left`
    * when the plan refuses; otherwise the [[Result]], whatever the apply's outcome. `stop` is the
    * apply's stop (see [[migrate]]). Driver errors outside the apply itself are raised.
    */
  def run[F[_]: Async](
      session: PgSession[F],
      set: MigrationSet,
      stop: F[Unit],
      settings: MigrationSettings = MigrationSettings.default
  ): F[Either[ApplyError, Result]] =
    plan[F](session, set, settings).flatMap {
      case Left(e) => Async[F].pure(Left(e))
      case Right(p) =>
        baseline(session, settings).flatMap {
          case Left(e) => Async[F].pure(Left(e))
          case Right(_) =>
            SqlApplier
              .create[F](session, ApplySettings.default)
              .flatMap(
                _.start(
                  p.files.map(_.file),
                  Some(recording(session, p, settings.history)),
                  p.inside
                )
                  .use(_.reportStoppingOn(stop))
              )
              .flatMap { report =>
                afterFailure(session, p, report).map(more =>
                  Right(Result(report, p.applied, p.warnings ++ more))
                )
              }
        }
    }

  /** After `plan`'s apply failed (`report`): its `afterMigrateError` callbacks, each in a
    * transaction of its own, as Flyway runs them after a failed migrate; what went wrong with them,
    * as warnings (the run reports its own failure). Nothing after a success or an interrupt.
    */
  def afterFailure[F[_]: Async](
      session: PgSession[F],
      plan: Plan,
      report: ApplyReport
  ): F[List[String]] = report.outcome match
    case ApplyReport.Outcome.Failed(_) if plan.onError.nonEmpty =>
      val names = plan.onError.map(_.fileName).mkString(", ")
      SqlApplier
        .create[F](session, ApplySettings.default)
        .flatMap(_.run(plan.onError.map(_.file)))
        .map(_.outcome match
          case ApplyReport.Outcome.Failed(e) =>
            List(s"the afterMigrateError callback failed too ($names): ${e.getMessage}")
          case _ => Nil
        )
        .handleError(e =>
          List(s"the afterMigrateError callback could not run ($names): ${e.getMessage}")
        )
    case _ => Async[F].pure(Nil)

  /** What records each file of `plan` as applied, inside its transaction (if it has one): the
    * `beforeCommit` of a [[SqlApplier]] run of `plan.files` (its callbacks are not recorded).
    */
  def recording[F[_]: cats.Applicative](
      session: PgSession[F],
      plan: Plan,
      history: String = defaultHistory
  ): (SqlFile, String, FiniteDuration) => F[Unit] =
    val byName = plan.pending.map(f => f.fileName -> f).toMap
    (file, sha256, took) =>
      // A callback is not recorded.
      byName.get(file.name).fold(cats.Applicative[F].unit) { planned =>
        // A repeatable with placeholders is its replaced text (FlywayPlaceholders.prepare): its
        // planned checksum is of that text, the apply's digest of the file's bytes.
        val recorded =
          if planned.kind == "repeatable" && planned.file.placeholders.isDefined then
            planned.checksums.sha256
          else sha256
        MigrationHistory.record(session, planned, recorded, took.toMillis, history)
      }
