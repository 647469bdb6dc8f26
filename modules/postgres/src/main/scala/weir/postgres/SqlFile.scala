package weir.postgres

import cats.effect.Sync
import java.io.{FileDescriptor, FileInputStream, FilterInputStream, InputStream}
import java.nio.channels.Channels
import java.nio.file.{Files, Path}
import java.nio.charset.StandardCharsets.UTF_8
import scala.util.Try
import weir.ConfigError

/** A SQL file to apply: where it is, the name messages use, its size (for progress; 0 when not
  * known), whether it is applied in a transaction of its own, the Flyway placeholders replaced in
  * it (`None`: none, the file is sent as it is; see [[Migrations]]), and whether it is the
  * process's standard input instead of the file at `path` ([[SqlFile.standardInput]]), or SQL held
  * in memory (`text`, [[SqlFile.text]]).
  */
final case class SqlFile(
    path: Path,
    name: String,
    size: Long,
    transactional: Boolean,
    placeholders: Option[Map[String, String]] = None,
    fromStandardInput: Boolean = false,
    text: Option[String] = None
):

  /** Whether the file is the one at `path` (not standard input, nor text in memory). */
  private[postgres] def onDisk: Boolean = !fromStandardInput && text.isEmpty

  /** The same file applied statement by statement, with no transaction around it. */
  def withoutTransaction: SqlFile = copy(transactional = false)

  /** The same file with Flyway's placeholders replaced by `values` (names in lower case) as it is
    * read ([[PlaceholderFilter]]).
    */
  private[postgres] def replacing(values: Map[String, String]): SqlFile =
    copy(placeholders = Some(values))

  /** `raw`, this file's bytes as read, with its placeholders replaced (if it has any). */
  private[postgres] def replaced[F[_]: Sync](raw: fs2.Stream[F, Byte]): fs2.Stream[F, Byte] =
    placeholders.fold(raw) { values =>
      def locate(offset: Long) = Sync[F].blocking {
        val in = Files.newInputStream(path)
        try PlaceholderFilter.position(name, in, offset)
        finally in.close()
      }
      raw.through(PlaceholderFilter.pipe[F](values, locate))
    }

  /** The file's pieces as an apply reads them ([[FileBlocks]], then [[SqlSplitter]]), for weir's
    * own looks into a file before applying it (a dry run, a migration's checks); errors as the
    * splitter raises them, a fatal one as [[ApplyError.Fatal]].
    */
  private[weir] def pieces[F[_]: Sync]: fs2.Stream[F, SqlPiece] =
    text[F].through(SqlSplitter.pipe[F](name))

  /** [[pieces]] as they are sent: psql's variables interpolated (`vars`, then as the file's own
    * `\set` lines set them) and its `\if` blocks followed (a migration holds no include), as a dry
    * run shows its statements (a `\gset`, whose statement is not run, sets nothing).
    */
  private[weir] def interpolated[F[_]](vars: Map[String, String] = Map.empty)(using
      F: Sync[F]
  ): fs2.Stream[F, SqlPiece] =
    fs2.Stream.eval(cats.effect.Ref.of[F, PsqlScript](PsqlScript.start(vars))).flatMap { script =>
      val tally = FileBlocks.Tally(None)
      pieces[F]
        .through(
          SqlIncludes.expand(this, _.open(), SqlSplitter.defaultMaxChunk, tally, script, F.unit)
        )
    }

  /** The file's bytes as they will be sent ([[FileBlocks]], its placeholders replaced). */
  private[postgres] def text[F[_]: Sync]: fs2.Stream[F, Byte] =
    replaced(FileBlocks[F](open(), 256 * 1024))

  /** The file opened for reading, from a channel (its reads end when their thread is interrupted);
    * standard input is not closed when what is returned is.
    */
  private[postgres] def open(): InputStream =
    if text.isDefined then new java.io.ByteArrayInputStream(text.get.getBytes(UTF_8))
    else if fromStandardInput then
      val channel = new FileInputStream(FileDescriptor.in).getChannel
      new FilterInputStream(Channels.newInputStream(channel)):
        override def close(): Unit = ()
    else Files.newInputStream(path)

object SqlFile:

  /** The file at `path`, named as given, in a transaction; `Left` says why it cannot be read. */
  def at[F[_]: Sync](path: Path): F[Either[ConfigError, SqlFile]] = Sync[F].blocking {
    def no(reason: String) = Left(ConfigError.Unreadable("SQL file", path.toString, reason))
    unreadable(path) match
      case Some(Unreadable.Missing) => no(s"$path: no such file")
      case Some(Unreadable.Directory) =>
        no(
          s"$path is a directory: give the .sql files in it, or apply it as a migrations directory"
        )
      case Some(Unreadable.Denied) => no(s"$path: not readable (permission denied)")
      case None => Right(SqlFile(path, path.toString, Files.size(path), transactional = true))
  }

  /** Why a SQL file cannot be read. */
  private[postgres] enum Unreadable:
    case Missing, Directory, Denied

  /** Why the file at `path` cannot be read, if it cannot. Blocking. */
  private[postgres] def unreadable(path: Path): Option[Unreadable] =
    if !Files.exists(path) then Some(Unreadable.Missing)
    else if Files.isDirectory(path) then Some(Unreadable.Directory)
    else if !Files.isReadable(path) then Some(Unreadable.Denied)
    else None

  /** SQL held in memory, applied as a file named `name` (in messages: `name:line:column`), in a
    * transaction; `\\i` and `\\ir` in it read from the working directory.
    */
  def text(name: String, sql: String): SqlFile =
    SqlFile(
      Path.of("-"),
      name,
      sql.getBytes(UTF_8).length.toLong,
      transactional = true,
      text = Some(sql)
    )

  /** The process's standard input as one file named `<stdin>` (as psql names it), in a transaction;
    * read once, as it comes (`pg_dump db | weir apply-sql -`). Its size is known when it is a
    * regular file (`< dump.sql`), else 0.
    */
  def standardInput[F[_]: Sync]: F[SqlFile] = Sync[F].blocking {
    val fd = Path.of("/dev/stdin")
    val size = Try(if Files.isRegularFile(fd) then Files.size(fd) else 0L).getOrElse(0L)
    SqlFile(Path.of("-"), "<stdin>", size, transactional = true, fromStandardInput = true)
  }
