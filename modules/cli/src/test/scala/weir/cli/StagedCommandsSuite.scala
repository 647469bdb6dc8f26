package weir.cli

import cats.effect.{IO, Resource}
import java.nio.file.Files
import munit.CatsEffectSuite
import scala.jdk.CollectionConverters.*
import scala.concurrent.duration.*
import weir.postgres.{TempPaths, TestPg}

/** Every command's main path run from the staged command, whose jars are rewritten at staging
  * (project/LambdaLinking.scala: Scala's lambda call sites moved to
  * `LambdaMetafactory.metafactory`). A call site rewritten that needed its bridge would fail there,
  * with an `AbstractMethodError`, and nowhere else: the other tests run on the unrewritten class
  * path. `apply-sql` is [[weir.cli.applysql.StagedStartSuite]]'s.
  */
class StagedCommandsSuite extends CatsEffectSuite with TempPaths.Cleanup:

  override def munitIOTimeout: Duration = 5.minutes

  private val hang = 2.minutes

  private def staged(args: String*): IO[(Int, String, String)] =
    IO.blocking(Staged.run(args.toList, hang))

  private def assertClean(result: (Int, String, String), marker: String): Unit =
    val (code, out, err) = result
    assertEquals(code, 0, s"stdout: $out\nstderr: $err")
    assert((out + err).contains(marker), s"no '$marker' in\nstdout: $out\nstderr: $err")
    assert(!err.contains("Exception"), err)

  test("compare: one strategy on one scenario") {
    staged(
      "compare",
      "--scenario",
      "balanced",
      "--strategy",
      "weir",
      "--scale",
      "0.01",
      "--no-live"
    )
      .map(assertClean(_, "balanced"))
  }

  /** Until something listens on `port` (the staged server's JVM is starting), at most `hang`. */
  private def listening(port: Int): IO[Unit] =
    val connects = IO.blocking(new java.net.Socket("127.0.0.1", port).close()).attempt
    def poll(left: Int): IO[Unit] = connects.flatMap {
      case Right(_)            => IO.unit
      case Left(_) if left > 0 => IO.sleep(100.millis) >> poll(left - 1)
      case Left(e) => IO.raiseError(new AssertionError(s"the server never listened: $e"))
    }
    poll((hang / 100.millis).toInt)

  /** The staged `weir serve` on a free port, for `use`. */
  private def stagedServer[A](use: Int => IO[A]): IO[A] =
    val port = TestPg.freePort()
    val args = List("serve", "--port", port.toString, "--delay", "0ms")
    Resource
      .make(IO.blocking(Staged.start(args, "", Map.empty))) { case (server, out, err) =>
        IO.blocking {
          server.destroy(); server.waitFor()
          List(out, err).foreach(Files.deleteIfExists)
        }
      }
      .use(_ => listening(port) >> use(port))

  private def load(port: Int, env: Map[String, String], javaOptions: String = "") =
    IO.blocking(
      Staged.run(
        List("load", s"http://127.0.0.1:$port/{id}", "-n", "300", "-c", "10", "--no-live"),
        hang,
        javaOptions,
        env
      )
    )

  test("serve and load: 300 requests from the staged client to the staged server") {
    stagedServer(port => load(port, Map("WEIR_NO_AOT" -> "1")).map(assertClean(_, "300")))
  }

  test("load's start-up cache: trained under WEIR_TRAIN_LOAD=1, then every load starts from it") {
    val dir = Files.createTempDirectory("weir-load-aot")
    val cache = dir.resolve("load.aot")
    val env = Map("WEIR_LOAD_AOT_CACHE" -> cache.toString)
    val classes = dir.resolve("classes.log")
    stagedServer { port =>
      for
        untrained <- load(port, env)
        none <- IO.blocking(Files.exists(cache))
        first <- load(port, env + ("WEIR_TRAIN_LOAD" -> "1"))
        made <- IO.blocking(Files.size(cache))
        second <- load(port, env, s"-Xlog:class+load=info:file=$classes")
        log <- IO.blocking(Files.readAllLines(classes).asScala.toList)
      yield
        // No load trains by surprise: without WEIR_TRAIN_LOAD, no cache, no training.
        assertClean(untrained, "300")
        assert(!none && !untrained._3.contains("start-up cache"), untrained._3)
        assertClean(first, "300")
        assert(first._3.contains("training its start-up cache"), first._3)
        assert(made > 10_000_000L, s"a cache of $made bytes")
        assertClean(second, "300")
        assert(!second._3.contains("start-up cache"), second._3)
        // Nothing of the JVM's on stdout: JDK 25.0.3 printed six warnings about the cache's
        // adapters there, at every start from it, before the report.
        assert(!second._2.contains("[warning]"), second._2)
        // Most classes of the load come from the cache (thousands; none without one).
        val cached = log.count(_.contains("source: shared objects file"))
        assert(cached > 3_000, s"$cached classes from the cache")
    }.guarantee(IO.blocking {
      Files.list(dir).iterator.asScala.foreach(Files.deleteIfExists)
      Files.deleteIfExists(dir)
    }.void)
  }

  test(
    "bin/weir run directly leaves psql's -h, -d and -v to apply-sql, not to its start script; -q"
  ) {
    for
      db <- TestPg.database("staged_psql")
      file <- IO.blocking {
        val f = tempPaths.file("weir-staged-", ".sql")
        Files.writeString(f, "CREATE TABLE landed (a int);\n")
      }
      args = List("apply-sql", "-X", "-1", "-v", "ON_ERROR_STOP=1", "-h", db.host, "-p")
        ++ List(db.port.toString, "-U", db.user, "-d", db.database, "-f", file.toString)
      applied <- IO.blocking(
        Staged.run(args :+ "--no-live", hang, env = Map("WEIR_NO_AOT" -> "1"), direct = true)
      )
      landed <- weir.postgres.PgSession
        .open[IO](db)
        .use(_.query("SELECT count(*) FROM landed"))
        .map(_.map(_.head))
      // psql's -q: nothing on stdout when all applied; the warning (a COPY body cut short) on stderr.
      cut <- IO.blocking {
        val f = tempPaths.file("weir-staged-", ".sql")
        Files.writeString(f, "CREATE TABLE quiet (a int);\nCOPY quiet FROM stdin;\n1\n2\n")
      }
      quiet <- IO.blocking(
        Staged.run(
          List("apply-sql", "-q", "-b", "-d", db.show.replace(":***@", "@"), "-f", cut.toString),
          hang,
          env = Map("WEIR_NO_AOT" -> "1"),
          direct = true
        )
      )
    yield
      assertClean(applied, "1 file(s) applied")
      assertEquals(landed.toList, List(Option("0")))
      val (code, out, err) = quiet
      assertEquals((code, out), (0, ""), err)
      assert(
        err.contains("warning: ") && err.contains("the COPY body ended at the end of the file"),
        err
      )
      assert(!err.contains("file(s) applied"), err)
  }

  test("queue init, enqueue, worker --exec --until-empty on a real PostgreSQL") {
    for
      db <- TestPg.database("staged_queue")
      url = db.show.replace(":***@", "@")
      init <- staged("queue", "init", "--url", url)
      enqueue <- staged("enqueue", "--ids", "0..20", "--url", url, "--no-live")
      worker <- staged(
        "worker",
        "--exec",
        "--until-empty",
        "--no-live",
        "--url",
        url,
        "--",
        "true",
        "{}"
      )
    yield
      assertClean(init, "")
      assertClean(enqueue, "enqueued 20 jobs")
      assertClean(worker, "20 jobs completed")
  }
