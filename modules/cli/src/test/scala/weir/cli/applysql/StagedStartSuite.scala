package weir.cli.applysql

import cats.effect.IO
import java.nio.file.{Files, Path, Paths}
import munit.CatsEffectSuite
import scala.concurrent.duration.*
import scala.jdk.CollectionConverters.*
import weir.cli.Staged
import weir.postgres.{PgSession, PgTarget, TempPaths, TestPg}

/** The staged command (`./sbt cli/stage`, what `./weir` runs) applying a file three times on a real
  * PostgreSQL ([[TestPg]]), as a user's first applies go: the first is recorded, the second makes
  * the start-up cache (a JDK 25 AOT cache) and uses it, the third starts from it. The third must
  * make next to no lambda class at run time: the cache keeps them since the staged jars' Scala
  * lambdas are on `LambdaMetafactory.metafactory` (project/LambdaLinking.scala; without it, ~1 000
  * were spun at every start). Each apply must succeed and be applied once. And an apply's
  * compilations, measured by the JVM (`-XX:CompileCommand=MemStat`): none may hold more than 2 MB
  * of the compiler's memory, which the JVM keeps to the end of the run (C1 compiled cats-effect's
  * run loop with ~10 MB, the apply's step and pgjdbc's result loop with ~4 MB). On an older JDK
  * (17, where one is installed) no cache is tried; on JDK 25 without `./weir`'s options the start
  * script's own keep the JVM's warnings away.
  */
class StagedStartSuite extends CatsEffectSuite with TempPaths.Cleanup:

  override def munitIOTimeout: Duration = 5.minutes

  private val hang = 2.minutes

  /** `weir apply-sql file` from the staged command, its AOT cache at `cache`: exit code, stderr. */
  private def apply(file: Path, target: PgTarget, cache: Path, extra: String): IO[(Int, String)] =
    applyWith(file, target, extra, Map("WEIR_AOT_CACHE" -> cache.toString))

  private def applyWith(
      file: Path,
      target: PgTarget,
      extra: String,
      env: Map[String, String],
      flags: List[String] = Nil
  ): IO[(Int, String)] =
    IO.blocking {
      val url = target.show.replace(":***@", "@")
      val args = List("apply-sql", file.toString, "--url", url, "--no-live") ++ flags
      val (code, _, err) = Staged.run(args, hang, extra, env)
      (code, err)
    }

  /** What `-XX:CompileCommand=MemStat,...,print` printed: each compiled method's arena bytes. */
  private def arenas(err: String): Map[String, Long] =
    val line = """.*Arena usage ([^(\s]+)\(.*Total Usage: (\d+).*""".r
    err.linesIterator.collect { case line(method, bytes) => method -> bytes.toLong }.toMap

  test("the third apply starts from the AOT cache, its lambdas' classes in it") {
    assume(Runtime.version.feature >= 25, "the start-up cache needs JDK 25")
    for
      db <- TestPg.database("staged")
      dir <- IO.blocking(tempPaths.directory("weir-staged-"))
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

  /** A one-statement file in a directory of its own, and a database. */
  private def oneStatement(name: String): IO[(Path, Path, PgTarget)] =
    for
      db <- TestPg.database(name)
      dir <- IO.blocking(tempPaths.directory(s"weir-$name-"))
      file <- IO.blocking(Files.writeString(dir.resolve("one.sql"), "SELECT 1;\n"))
    yield (dir, file, db)

  test("on a JDK older than 25 no start-up cache is tried: nothing recorded, said or left behind") {
    val jdk17 = Paths.get("/usr/lib/jvm/java-17-openjdk-amd64")
    assume(Files.isExecutable(jdk17.resolve("bin/java")), s"no JDK 17 at $jdk17")
    oneStatement("staged17").flatMap { (dir, file, db) =>
      val env = Map(
        "JAVA_HOME" -> jdk17.toString,
        "JAVA_OPTS" -> "",
        "WEIR_AOT_CACHE" -> dir.resolve("apply.aot").toString
      )
      for
        first <- applyWith(file, db, "", env)
        second <- applyWith(file, db, "", env)
        left <- IO.blocking(Files.list(dir).iterator.asScala.map(_.getFileName.toString).toList)
      yield
        assertEquals(first._1, 0, first._2)
        assertEquals(second._1, 0, second._2)
        assert(!(first._2 + second._2).contains("start-up cache"), first._2 + second._2)
        assertEquals(left, List("one.sql"))
    }
  }

  test("on JDK 25 the start script allows Unsafe and native access itself: no JVM warning") {
    assume(Runtime.version.feature >= 25, "the warnings are JDK 23+'s")
    oneStatement("staged25").flatMap { (_, file, db) =>
      applyWith(file, db, "", Map("JAVA_OPTS" -> "", "WEIR_NO_AOT" -> "1")).map { (code, err) =>
        assertEquals(code, 0, err)
        assert(!err.contains("WARNING"), err)
      }
    }
  }

  test("no compilation of an apply holds more than 2 MB: the run loop, pgjdbc's result loop") {
    assume(Runtime.version.feature >= 22, "-XX:CompileCommand=MemLimit needs JDK 22")
    val large = List(
      "cats/effect/IOFiber::runLoop",
      "org/postgresql/core/v3/QueryExecutorImpl::processResults"
    )
    for
      db <- TestPg.database("staged_memory")
      dir <- IO.blocking(tempPaths.directory("weir-staged-"))
      file = dir.resolve("copy.sql")
      // A COPY (the run loop) and statements in round trips of one (pgjdbc's result loop).
      _ <- IO.blocking {
        val rows = (1 to 400000).iterator.map(i => s"$i\tname$i\n").mkString
        val inserts = (1 to 3000).iterator.map(i => s"INSERT INTO c VALUES ($i, 'i');\n").mkString
        Files.writeString(
          file,
          s"CREATE TABLE c (id bigint, name text);\nCOPY c FROM STDIN;\n$rows\\.\n$inserts"
        )
      }
      noCache = Map("WEIR_NO_AOT" -> "1")
      // Compiling in the foreground: a method is compiled once its counters call for it, not
      // left in the compiler's queue when the process exits.
      memStat = "-XX:-BackgroundCompilation -XX:CompileCommand=MemStat,*.*,print"
      kept <- applyWith(file, db, memStat, noCache, List("--pipeline", "1"))
      rows <- PgSession.open[IO](db).use(_.query("SELECT count(*)::text FROM c"))
      _ <- PgSession.open[IO](db).use(_.update("DROP TABLE c"))
      // The control: JAVA_OPTS that names the run loop keeps the JIT's default, no bound.
      compiled <- applyWith(
        file,
        db,
        s"$memStat -Dweir.test=IOFiber",
        noCache,
        List("--pipeline", "1")
      )
    yield
      assertEquals(kept._1, 0, kept._2)
      assertEquals(rows.flatMap(_.head), Vector("403000"))
      val measured = arenas(kept._2)
      assert(
        measured.size > 500,
        s"${measured.size} compilations measured: MemStat printed nothing?"
      )
      // A compilation stops at its first check past the limit: seen up to 2.41 MB.
      val over = measured.filter(_._2 > 2_600_000L)
      assert(over.isEmpty, s"compilations over 2 MB: $over")
      assertEquals(compiled._1, 0, compiled._2)
      val control = arenas(compiled._2)
      val unbounded = large.map(method => method -> control.get(method))
      assert(unbounded.forall(_._2.exists(_ > 3_000_000L)), s"without the bound: $unbounded")
  }
