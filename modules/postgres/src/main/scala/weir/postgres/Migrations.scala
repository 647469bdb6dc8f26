package weir.postgres

import cats.effect.Async
import cats.syntax.all.*
import fs2.io.file.{Files, Path as FPath}
import java.nio.file.{Files as JFiles, Path}
import java.security.MessageDigest
import scala.concurrent.duration.FiniteDuration
import scala.jdk.CollectionConverters.*

/** A directory of migrations: `*.sql` files applied in name order, each once, each recorded in
  * `weir.migrations` (name, SHA-256, applied at, duration) in the transaction that applied it.
  *
  * A file runs in a transaction of its own unless its first line is `-- weir: no-transaction`.
  * Before anything is applied, every applied file still in the directory is checked against its
  * recorded SHA-256: a changed one stops the run ([[ApplyError.ChecksumChanged]]). A session-level
  * advisory lock, taken before the applied list is read and released when the call that took it
  * ends (returns, fails or is cancelled), keeps two concurrent runs from applying the same
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

  /** What a run would apply, and what it found applied. */
  final case class Plan(pending: List[SqlFile], applied: Int, warnings: List[String])

  /** What [[run]] did: the apply of the pending migrations (its outcome says whether each was
    * applied: a failed or interrupted apply is a `Result` too), how many migrations were recorded
    * as applied before, and the plan's warnings.
    */
  final case class Result(report: ApplyReport, alreadyApplied: Int, warnings: List[String])

  /** The migrations in `dir`, in name order; `Left` when it is not a readable directory. */
  def load[F[_]: Async](dir: Path): F[Either[ApplyError, List[SqlFile]]] = Async[F].blocking {
    if !JFiles.isDirectory(dir) then Left(ApplyError.BadMigrations(s"$dir: not a directory"))
    else
      val sql = JFiles
        .list(dir)
        .iterator
        .asScala
        .filter(p => p.getFileName.toString.endsWith(".sql") && JFiles.isRegularFile(p))
        .toList
        .sortBy(_.getFileName.toString)
      Right(sql.map { p =>
        val first = firstLine(p)
        SqlFile(
          p,
          p.getFileName.toString,
          JFiles.size(p),
          transactional = first != noTransactionMarker
        )
      })
  }

  private def firstLine(p: Path): String =
    val reader = JFiles.newBufferedReader(p)
    try Option(reader.readLine()).getOrElse("").stripPrefix("\uFEFF").trim
    catch case _: java.nio.charset.CharacterCodingException => ""
    finally reader.close()

  /** The schema of weir's bookkeeping table (`weir.migrations`) unless told otherwise: a queue in a
    * schema of its own keeps its record there (`weir.postgres.queue.QueueSchemaName`).
    */
  val defaultHistory: String = "weir"

  private def table(history: String) = s"$history.migrations"

  /** Runs `body` holding the migrations' lock, calling `waiting` first when another run holds it;
    * weir's bookkeeping table is created first if needed (under the lock: two first runs must not
    * both create it). The lock is released when `body` ends, however it ends; the session is left
    * in autocommit. Driver errors are raised.
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
    Async[F].bracket(lock)(_ =>
      session.update(s"CREATE SCHEMA IF NOT EXISTS $history") >>
        session.update(
          s"CREATE TABLE IF NOT EXISTS ${table(history)} (name text PRIMARY KEY, sha256 text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now(), duration_ms bigint NOT NULL)"
        ) >> body
    )(_ => unlock)

  /** The plan for `files`: those not applied yet, in order; `Left` when an applied one changed.
    * Reads without writing (a dry run may call it without [[prepare]]).
    */
  def plan[F[_]: Async](
      session: PgSession[F],
      files: List[SqlFile],
      history: String = defaultHistory
  ): F[Either[ApplyError, Plan]] =
    session
      .query("SELECT to_regclass(?) IS NOT NULL", table(history))
      .flatMap { rows =>
        if rows.headOption.flatMap(_.headOption).flatten.contains("t") then
          session.query(s"SELECT name, sha256 FROM ${table(history)} ORDER BY name")
        else Async[F].pure(Vector.empty)
      }
      .flatMap { rows =>
        val applied = rows.flatMap(r => (r(0), r(1)).tupled).toMap
        val byName = files.map(f => f.name -> f).toMap
        val changed = files.filter(f => applied.contains(f.name)).traverse { f =>
          sha256(f.path).map(now => Option.when(now != applied(f.name))(f.name -> now))
        }
        changed.map(_.flatten.headOption match
          case Some((name, now)) => Left(ApplyError.ChecksumChanged(name, applied(name), now))
          case None =>
            val pending = files.filterNot(f => applied.contains(f.name))
            val latest = applied.keys.maxOption
            val warnings =
              applied.keys.toList.sorted
                .filterNot(byName.contains)
                .map(n =>
                  s"$n is recorded as applied but is not in the directory any more"
                ) ++ pending
                .filter(f => latest.exists(f.name < _))
                .map(f =>
                  s"${f.name} sorts before ${latest.get}, which is already applied: applying it now"
                )
            Right(Plan(pending, applied.size, warnings))
        )
      }

  /** Where migrations come from: a directory of `*.sql` files, or named files under a directory of
    * the class path (as weir ships its queue's schema: see `weir.postgres.queue.QueueSchema`).
    */
  enum Source:
    /** The `*.sql` files of `path`, in name order (see [[load]]). */
    case Directory(path: Path)

    /** The files `names` (applied in this order) under `resourceDir` on the class path. */
    case Classpath(resourceDir: String, names: List[String])

  /** The one call: applies what is pending of `source` on `session` ([[run]] under [[withLock]]),
    * the lock released when it returns. `waiting` is called first when another run holds the lock;
    * when `stop` completes, the apply is stopped at once (the statement running cancelled on the
    * server, its file rolled back; the result's outcome says so).
    *
    * '''Errors.''' One channel: a source that cannot be read, an applied migration that changed, a
    * lost connection or any driver error in weir's bookkeeping is a `Left`; a migration that fails
    * is a `Right` whose `report.outcome` says which statement failed and why. Cancelling the call
    * cancels the statement running and releases the lock.
    *
    * '''Where the record is.''' In `<history>.migrations` (the schema created if needed; `weir`
    * unless told otherwise): a plain lowercase identifier, as the caller checked it.
    */
  def migrate[F[_]: Async](
      session: PgSession[F],
      source: Source,
      waiting: F[Unit],
      stop: F[Unit],
      history: String = defaultHistory
  ): F[Either[ApplyError, Result]] =
    def applyDirectory(dir: Path) = load[F](dir).flatMap {
      case Left(e) => Async[F].pure(Left(e))
      case Right(files) =>
        withLock(session, waiting, history)(run[F](session, files, stop, history))
    }
    val applied = source match
      case Source.Directory(dir) => applyDirectory(dir)
      case Source.Classpath(resourceDir, names) =>
        ClasspathFiles.directory[F](resourceDir, names).use(applyDirectory)
    applied.handleError(e => Left(ApplyError.bookkeeping(session.target.show, e)))

  /** [[migrate]] with no wait message and no stop. */
  def migrate[F[_]: Async](session: PgSession[F], source: Source): F[Either[ApplyError, Result]] =
    migrate(session, source, Async[F].unit, Async[F].never)

  /** Applies the migrations of `files` not applied yet, in order, on `session`, which must hold the
    * lock ([[withLock]]; [[migrate]] does both): [[plan]], then each pending file through a
    * [[SqlApplier]], recorded in its own transaction. `Left` when an applied migration changed;
    * otherwise the [[Result]], whatever the apply's outcome. `stop` is the apply's stop (see
    * [[migrate]]). Driver errors outside the apply itself are raised.
    */
  def run[F[_]: Async](
      session: PgSession[F],
      files: List[SqlFile],
      stop: F[Unit],
      history: String = defaultHistory
  ): F[Either[ApplyError, Result]] =
    plan[F](session, files, history).flatMap {
      case Left(e) => Async[F].pure(Left(e))
      case Right(p) =>
        val recording = (file: SqlFile, sha: String, took: FiniteDuration) =>
          record[F](session, file, sha, took.toMillis, history)
        SqlApplier
          .create[F](session, ApplySettings.default)
          .flatMap(_.start(p.pending, Some(recording)).use(_.reportStoppingOn(stop)))
          .map(report => Right(Result(report, p.applied, p.warnings)))
    }

  /** Records `file` as applied (inside its transaction, if it has one). */
  def record[F[_]](
      session: PgSession[F],
      file: SqlFile,
      sha256: String,
      millis: Long,
      history: String = defaultHistory
  ): F[Unit] =
    session.update(
      s"INSERT INTO ${table(history)} (name, sha256, duration_ms) VALUES (?, ?, ?::bigint)",
      file.name,
      sha256,
      millis.toString
    )

  /** The SHA-256 of a file, read as a stream. */
  def sha256[F[_]: Async](path: Path): F[String] =
    Files
      .forAsync[F]
      .readAll(FPath.fromNioPath(path))
      .chunks
      .fold(MessageDigest.getInstance("SHA-256")) { (d, c) =>
        val s = c.toArraySlice
        d.update(s.values, s.offset, s.length)
        d
      }
      .compile
      .lastOrError
      .map(_.digest().map(b => f"${b & 0xff}%02x").mkString)
