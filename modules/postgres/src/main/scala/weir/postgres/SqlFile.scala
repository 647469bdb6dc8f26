package weir.postgres

import cats.effect.Sync
import java.nio.file.{Files, Path}

/** A SQL file to apply: where it is, the name messages use, its size (for progress), and whether it
  * is applied in a transaction of its own.
  */
final case class SqlFile(path: Path, name: String, size: Long, transactional: Boolean):

  /** The same file applied statement by statement, with no transaction around it. */
  def withoutTransaction: SqlFile = copy(transactional = false)

object SqlFile:

  /** The file at `path`, named as given, in a transaction; `Left` says why it cannot be read. */
  def at[F[_]: Sync](path: Path): F[Either[String, SqlFile]] = Sync[F].blocking {
    if !Files.exists(path) then Left(s"$path: no such file")
    else if Files.isDirectory(path) then
      Left(s"$path is a directory: give the .sql files in it, or --migrations $path")
    else if !Files.isReadable(path) then Left(s"$path: not readable (permission denied)")
    else Right(SqlFile(path, path.toString, Files.size(path), transactional = true))
  }
