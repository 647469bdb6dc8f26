package weir.postgres.queue

import cats.{Functor, Monad}
import cats.effect.{Async, Resource}
import cats.syntax.all.*
import java.nio.file.Path
import weir.postgres.{ApplyError, ClasspathFiles, Migrations, PgSession}

/** The queue's schema (`weir.jobs`, `weir.job_rejections`, `weir.jobs_archive`; from
  * `0002_weir_stable_plans.sql` the functions every worker statement calls; from
  * `0003_weir_job_runs.sql` the [[RunLog]]'s table; from `0004_weir_job_kinds.sql` the jobs' kind,
  * the SQL function `weir.enqueue` any client can call, and `weir.discard_jobs`; from
  * `0005_weir_queue_pause.sql` paused queues and the cancelled jobs a worker asks about; from
  * `0006_weir_schedules.sql` periodic jobs; from `0007_weir_reliability.sql` the kind of a
  * schedule's jobs, a job's own timeout and unique keys over a period; from
  * `0008_weir_existing_ids.sql` the id of the job holding a taken unique key, from `weir.enqueue`
  * and `weir.enqueue_outcome`; from `0009_weir_failures_index.sql` failed attempts by time, for
  * `weir queue ui`'s chart; from `0010_weir_error_history.sql` every error of a job with its time;
  * from `0011_weir_workers.sql` a row for each running worker) as migrations, shipped in the jar
  * under [[resourceDir]] and applied by weir's own migrations ([[Migrations.migrate]], the
  * machinery of `weir apply-sql --migrations DIR`): each file once, recorded in `weir.migrations`
  * with its SHA-256, under the migrations' advisory lock, so any number of workers may run it at
  * start-up.
  *
  * '''Schemas.''' Every call takes the [[QueueSchemaName]] the queue lives in (`weir` when none is
  * given): the migrations are applied with each `weir.` rewritten to that schema
  * (`QueueSchemaName.rewrite`) and recorded in `<schema>.migrations`. Under `weir` the files are
  * applied as shipped, so the checksums recorded by earlier versions still match.
  */
object QueueSchema:

  /** Where the migrations are on the class path. */
  val resourceDir: String = "weir/queue/migrations"

  /** The migration files, in order. */
  val files: List[String] =
    List(
      "0001_weir_jobs.sql",
      "0002_weir_stable_plans.sql",
      "0003_weir_job_runs.sql",
      "0004_weir_job_kinds.sql",
      "0005_weir_queue_pause.sql",
      "0006_weir_schedules.sql",
      "0007_weir_reliability.sql",
      "0008_weir_existing_ids.sql",
      "0009_weir_failures_index.sql",
      "0010_weir_error_history.sql",
      "0011_weir_workers.sql"
    )

  /** The queue's migrations as a [[Migrations.Source]] (for [[Migrations.migrate]]). */
  val source: Migrations.Source = Migrations.Source.Classpath(resourceDir, files)

  /** The migrations copied into a fresh temporary directory (deleted on release), for `weir
    * apply-sql --migrations` or any tool that reads a directory.
    */
  def directory[F[_]: Async]: Resource[F, Path] = directory[F](QueueSchemaName.default)

  /** [[directory]] with the migrations rewritten for `schema` (their record must then be kept in
    * `<schema>.migrations`, as [[migrate]] does).
    */
  def directory[F[_]: Async](schema: QueueSchemaName): Resource[F, Path] =
    ClasspathFiles.directory[F](resourceDir, files, rewriting(schema))

  private def rewriting(schema: QueueSchemaName): Option[String => String] =
    Option.when(schema != QueueSchemaName.default)(schema.rewrite)

  /** The migrations of [[files]] that `session`'s database has not recorded as applied (all of them
    * when it has no `weir.migrations`): a worker of this version needs every one (its statements
    * call the functions they create).
    */
  def missing[F[_]: Monad](session: PgSession[F]): F[List[String]] =
    missing(session, QueueSchemaName.default)

  /** [[missing]] for the queue in `schema`. */
  def missing[F[_]: Monad](session: PgSession[F], schema: QueueSchemaName): F[List[String]] =
    val names = files.map(n => s"'$n'").mkString(", ")
    exists(session, s"$schema.migrations").flatMap { recorded =>
      if !recorded then Monad[F].pure(files)
      else
        session
          .query(
            s"SELECT n FROM unnest(ARRAY[$names]) AS n WHERE n NOT IN (SELECT name FROM $schema.migrations)"
          )
          .map(_.flatMap(_.headOption.flatten).toList)
    }

  /** Whether `session`'s database has the queue, with every migration of this version applied:
    * `Right(())`, else [[QueueError.NoQueue]] (no `weir.jobs`) or [[QueueError.MissingMigrations]]
    * (see [[missing]]). Reads only; driver errors are raised.
    */
  def check[F[_]: Monad](session: PgSession[F]): F[Either[QueueError, Unit]] =
    check(session, QueueSchemaName.default)

  /** [[check]] for the queue in `schema`. */
  def check[F[_]: Monad](
      session: PgSession[F],
      schema: QueueSchemaName
  ): F[Either[QueueError, Unit]] =
    exists(session, s"$schema.jobs").flatMap { present =>
      if !present then Monad[F].pure(Left(QueueError.NoQueue(session.target.show, schema.name)))
      else
        missing(session, schema).map {
          case Nil  => Right(())
          case some => Left(QueueError.MissingMigrations(session.target.show, some))
        }
    }

  private def exists[F[_]: Functor](session: PgSession[F], table: String): F[Boolean] =
    session
      .query("SELECT to_regclass(?) IS NOT NULL", table)
      .map(_.headOption.flatMap(_.headOption).flatten.contains("t"))

  /** Applies the migrations not applied yet on `session`, in one call ([[Migrations.migrate]]: its
    * lock held only during the call; every failure a `Left`). What was applied, and how: check the
    * result's `report.outcome`.
    */
  def migrate[F[_]: Async](session: PgSession[F]): F[Either[ApplyError, Migrations.Result]] =
    migrate(session, QueueSchemaName.default)

  /** [[migrate]] for the queue in `schema` (see [[QueueSchema]], "Schemas"). */
  def migrate[F[_]: Async](
      session: PgSession[F],
      schema: QueueSchemaName
  ): F[Either[ApplyError, Migrations.Result]] =
    migrate(session, schema, Async[F].unit, Async[F].never)

  /** [[migrate]], calling `waiting` first when another run holds the migrations' lock, and stopping
    * the apply's run at once when `stop` completes (the statement running is cancelled on the
    * server and its file rolled back; the report's outcome says so).
    */
  def migrate[F[_]: Async](
      session: PgSession[F],
      waiting: F[Unit],
      stop: F[Unit]
  ): F[Either[ApplyError, Migrations.Result]] =
    migrate(session, QueueSchemaName.default, waiting, stop)

  /** [[migrate]] with `waiting` and `stop` (see above) for the queue in `schema`. */
  def migrate[F[_]: Async](
      session: PgSession[F],
      schema: QueueSchemaName,
      waiting: F[Unit],
      stop: F[Unit]
  ): F[Either[ApplyError, Migrations.Result]] =
    if schema == QueueSchemaName.default then Migrations.migrate(session, source, waiting, stop)
    else
      directory[F](schema)
        .use(dir =>
          Migrations.migrate(session, Migrations.Source.Directory(dir), waiting, stop, schema.name)
        )
        .handleError(e => Left(ApplyError.bookkeeping(session.target.show, e)))
