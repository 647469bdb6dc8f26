package weir.cli.applysql

import cats.effect.IO
import java.nio.file.{Files, Path}
import munit.CatsEffectSuite
import scala.concurrent.duration.*
import scala.jdk.CollectionConverters.*
import weir.cli.Staged
import weir.postgres.{PgSession, PgTarget, TestPg}

/** The staged command (`./sbt cli/stage`, what `./weir` runs) applying a file three times on a real
  * PostgreSQL ([[TestPg]]), as a user's first applies go: the first is recorded, the second makes
  * the start-up cache (a JDK 25 AOT cache) and uses it, the third starts from it. The third must
  * make next to no lambda class at run time: the cache keeps them since the staged jars' Scala
  * lambdas are on `LambdaMetafactory.metafactory` (project/LambdaLinking.scala; without it, ~1 000
  * were spun at every start). Each apply must succeed and be applied once.
  */
class StagedStartSuite extends CatsEffectSuite:

  override def munitIOTimeout: Duration = 5.minutes

  private val hang = 2.minutes

  /** `weir apply-sql file` from the staged command, its AOT cache at `cache`: exit code, stderr. */
  private def apply(file: Path, target: PgTarget, cache: Path, extra: String): IO[(Int, String)] =
    IO.blocking {
      val url = target.show.replace(":***@", "@")
      val args = List("apply-sql", file.toString, "--url", url, "--no-live")
      val (code, _, err) = Staged.run(args, hang, extra, Map("WEIR_AOT_CACHE" -> cache.toString))
      (code, err)
    }

  test("the third apply starts from the AOT cache, its lambdas' classes in it") {
    assume(Runtime.version.feature >= 25, "the start-up cache needs JDK 25")
    for
      db <- TestPg.database("staged")
      dir <- IO.blocking(Files.createTempDirectory("weir-staged-"))
      file = dir.resolve("rows.sql")
      _ <- IO.blocking(
        Files.writeString(
          file,
          "CREATE TABLE IF NOT EXISTS t (a int);\nINSERT INTO t VALUES (1);\n"
        )
      )
      cache = dir.resolve("apply.aot")
      classes = dir.resolve("classes.txt")
      first <- apply(file, db, cache, "")
      second <- apply(file, db, cache, "")
      third <- apply(file, db, cache, s"-Xlog:class+load:file=$classes")
      rows <- PgSession.open[IO](db).use(_.query("SELECT count(*)::text FROM t"))
      loaded <- IO.blocking(Files.readAllLines(classes).asScala.toList)
    yield
      assertEquals(first._1, 0, first._2)
      assert(first._2.contains("first run of this build: recording it"), first._2)
      assertEquals(second._1, 0, second._2)
      assert(second._2.contains("making its start-up cache from an earlier apply"), second._2)
      assertEquals(third._1, 0, third._2)
      assert(Files.isRegularFile(cache), s"no cache at $cache")
      assertEquals(rows.flatMap(_.head), Vector("3"))
      val lambdas = loaded.filter(_.contains("$$Lambda"))
      val spun = lambdas.filterNot(_.contains("source: shared objects file"))
      assert(lambdas.size > 500, s"${lambdas.size} lambda classes loaded: not an apply's start?")
      assert(
        spun.size < 20,
        s"${spun.size} lambda classes made at run time:\n${spun.take(20).mkString("\n")}"
      )
  }
