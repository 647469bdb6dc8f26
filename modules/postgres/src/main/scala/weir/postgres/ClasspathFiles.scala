package weir.postgres

import cats.effect.{Async, Resource}
import java.nio.charset.StandardCharsets
import java.nio.file.{Files, Path}
import scala.util.control.NonFatal

/** Files shipped on the class path (in a jar or a directory), copied into a fresh temporary
  * directory for as long as the resource is held, so that whatever reads a directory of files
  * ([[Migrations.load]], `weir apply-sql --migrations`) can read them too.
  */
private[weir] object ClasspathFiles:

  /** `names` under `resourceDir`, copied into a new temporary directory (deleted on release), each
    * file's text through `rewrite` (UTF-8) unless it is `None` (the bytes as they are); raises an
    * `IllegalStateException` naming the first file missing from the class path, the directory
    * deleted. The directory is made in `parent` when given, else in the JVM's temporary directory.
    */
  def directory[F[_]](
      resourceDir: String,
      names: List[String],
      rewrite: Option[String => String] = None,
      parent: Option[Path] = None
  )(using F: Async[F]): Resource[F, Path] =
    Resource.make(F.blocking {
      val prefix = "weir-migrations-"
      val dir = parent.fold(Files.createTempDirectory(prefix))(Files.createTempDirectory(_, prefix))
      try names.foreach(copy(resourceDir, _, dir, rewrite))
      catch
        case e: Throwable => // a file missing or unreadable: nothing is left behind
          try delete(dir, names)
          catch case NonFatal(d) => e.addSuppressed(d)
          throw e
      dir
    })(dir => F.blocking(delete(dir, names)))

  private def copy(
      resourceDir: String,
      name: String,
      dir: Path,
      rewrite: Option[String => String]
  ): Unit =
    val in = getClass.getClassLoader.getResourceAsStream(s"$resourceDir/$name")
    if in == null then
      throw new IllegalStateException(s"$resourceDir/$name is missing from the class path")
    try
      rewrite match
        case None => Files.copy(in, dir.resolve(name)): Unit
        case Some(f) =>
          val text = new String(in.readAllBytes(), StandardCharsets.UTF_8)
          Files.write(dir.resolve(name), f(text).getBytes(StandardCharsets.UTF_8)): Unit
    finally in.close()

  private def delete(dir: Path, names: List[String]): Unit =
    names.foreach(n => Files.deleteIfExists(dir.resolve(n)))
    Files.deleteIfExists(dir): Unit
