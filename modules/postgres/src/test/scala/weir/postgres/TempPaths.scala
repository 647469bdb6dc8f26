package weir.postgres

import java.nio.file.{Files, LinkOption, Path}
import java.util.concurrent.ConcurrentLinkedQueue
import scala.jdk.CollectionConverters.*
import scala.util.Using
import scala.util.control.NonFatal

/** The temporary files and directories one suite makes (in `java.io.tmpdir`), remembered so that
  * [[deleteAll]] deletes every one of them, a directory with all it holds. Safe to use from tests
  * running concurrently.
  */
final class TempPaths:
  private val made = new ConcurrentLinkedQueue[Path]

  /** A new empty file, `prefix` + random digits + `suffix`. */
  def file(prefix: String, suffix: String): Path = remember(Files.createTempFile(prefix, suffix))

  /** A new empty directory, `prefix` + random digits. */
  def directory(prefix: String): Path = remember(Files.createTempDirectory(prefix))

  /** Deletes what was made so far, directories recursively, and forgets it. Never throws: a path
    * that cannot be deleted is named on standard error and the rest are still deleted.
    */
  def deleteAll(): Unit =
    Iterator.continually(made.poll()).takeWhile(_ != null).foreach { path =>
      try TempPaths.delete(path)
      catch
        case NonFatal(e) =>
          System.err.println(s"TempPaths: $path not deleted: $e")
    }

  private def remember(path: Path): Path =
    made.add(path): Unit
    path

object TempPaths:

  /** A suite with its own [[TempPaths]], given to the fixtures that write files, and deleted once
    * the suite's last test has run (`afterAll`): by then the PostgreSQL server, psql, pg_dump,
    * Flyway and the staged `weir` command its tests started are done with them.
    */
  trait Cleanup extends munit.Suite:
    protected given tempPaths: TempPaths = TempPaths()

    override def afterAll(): Unit =
      try tempPaths.deleteAll()
      finally super.afterAll()

  /** Deletes `path` and, when it is a directory (not a link to one), everything under it; what is
    * already gone is skipped.
    */
  def delete(path: Path): Unit =
    if Files.isDirectory(path, LinkOption.NOFOLLOW_LINKS) then
      Using.resource(Files.list(path))(_.iterator.asScala.toList).foreach(delete)
    Files.deleteIfExists(path): Unit
