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
  * advisory lock, taken before the applied list is read and held until the session closes, keeps
  * two concurrent runs from applying the same migrations: the second waits, then finds them
  * applied.
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
    if !JFiles.isDirectory(dir) then
      Left(ApplyError.BadMigrations(s"--migrations $dir: not a directory"))
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

  private val table = "weir.migrations"

  /** Takes the lock, calling `waiting` first when another run holds it, then creates weir's
    * bookkeeping table if needed (under the lock: two first runs must not both create it).
    */
  def prepare[F[_]: Async](session: PgSession[F], waiting: F[Unit]): F[Unit] =
    session.transaction(on = false) >>
      session.query("SELECT pg_try_advisory_lock(?::bigint)", lockKey.toString).flatMap { rows =>
        if rows.headOption.flatMap(_.headOption).flatten.contains("t") then Async[F].unit
        else waiting >> session.query("SELECT pg_advisory_lock(?::bigint)", lockKey.toString).void
      } >>
      session.update("CREATE SCHEMA IF NOT EXISTS weir") >>
      session.update(
        s"CREATE TABLE IF NOT EXISTS $table (name text PRIMARY KEY, sha256 text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now(), duration_ms bigint NOT NULL)"
      )

  /** The plan for `files`: those not applied yet, in order; `Left` when an applied one changed.
    * Reads without writing (a dry run may call it without [[prepare]]).
    */
  def plan[F[_]: Async](
      session: PgSession[F],
      files: List[SqlFile]
  ): F[Either[ApplyError, Plan]] =
    session
      .query("SELECT to_regclass(?) IS NOT NULL", table)
      .flatMap { rows =>
        if rows.headOption.flatMap(_.headOption).flatten.contains("t") then
          session.query(s"SELECT name, sha256 FROM $table ORDER BY name")
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

  /** Applies the migrations of `files` not applied yet, in order, on `session`: [[prepare]]
    * (calling `waiting` first when another run holds the lock), [[plan]], then each pending file
    * through a [[SqlApplier]], recorded in its own transaction. `Left` when an applied migration
    * changed; otherwise the [[Result]], whatever the apply's outcome. `stop` is the apply's stop:
    * when it completes, the apply's run is stopped at once ([[ApplyRun.reportStoppingOn]]), the
    * statement running cancelled on the server and its file rolled back (the outcome says so). The
    * session is left in autocommit, holding the lock until it closes (see [[Migrations]]). Driver
    * errors outside the apply itself (taking the lock, reading what is applied) are raised.
    */
  def run[F[_]: Async](
      session: PgSession[F],
      files: List[SqlFile],
      waiting: F[Unit],
      stop: F[Unit]
  ): F[Either[ApplyError, Result]] =
    prepare[F](session, waiting) >> plan[F](session, files).flatMap {
      case Left(e) => Async[F].pure(Left(e))
      case Right(p) =>
        val recording = (file: SqlFile, sha: String, took: FiniteDuration) =>
          record[F](session, file, sha, took.toMillis)
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
      millis: Long
  ): F[Unit] =
    session.update(
      s"INSERT INTO $table (name, sha256, duration_ms) VALUES (?, ?, ?::bigint)",
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
