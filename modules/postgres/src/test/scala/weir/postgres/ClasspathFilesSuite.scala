package weir.postgres

import cats.effect.IO
import java.nio.file.{Files, Path}
import munit.CatsEffectSuite
import scala.jdk.CollectionConverters.*
import scala.util.Using

/** Files from the class path copied into a temporary directory: there while the resource is held,
  * gone after; a file missing from the class path fails the acquisition and leaves nothing behind
  * (it left the directory, with the files copied before the missing one).
  */
class ClasspathFilesSuite extends CatsEffectSuite with TempPaths.Cleanup:

  private val resourceDir = "weir/queue/migrations"
  private val present = List("0001_weir_jobs.sql", "0002_weir_stable_plans.sql")

  private def entries(dir: Path): List[String] =
    Using.resource(Files.list(dir))(_.iterator.asScala.map(_.getFileName.toString).toList.sorted)

  test("the files are there while the resource is held, and deleted with their directory after") {
    val parent = tempPaths.directory("weir-classpath-")
    ClasspathFiles
      .directory[IO](resourceDir, present, parent = Some(parent))
      .use(dir => IO.blocking((entries(parent).size, entries(dir))))
      .map { (held, files) =>
        assertEquals(held, 1)
        assertEquals(files, present)
        assertEquals(entries(parent), Nil)
      }
  }

  test("a file missing from the class path: an error naming it, nothing left behind") {
    val parent = tempPaths.directory("weir-classpath-")
    ClasspathFiles
      .directory[IO](resourceDir, present :+ "0999_nowhere.sql", parent = Some(parent))
      .use(_ => IO.unit)
      .attempt
      .map { result =>
        assert(clue(result).left.exists(_.getMessage.contains("0999_nowhere.sql is missing")))
        assertEquals(entries(parent), Nil)
      }
  }
