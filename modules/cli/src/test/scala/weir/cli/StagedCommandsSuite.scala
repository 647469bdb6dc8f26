package weir.cli

import cats.effect.{IO, Resource}
import munit.CatsEffectSuite
import scala.concurrent.duration.*
import weir.postgres.TestPg

/** Every command's main path run from the staged command, whose jars are rewritten at staging
  * (project/LambdaLinking.scala: Scala's lambda call sites moved to
  * `LambdaMetafactory.metafactory`). A call site rewritten that needed its bridge would fail there,
  * with an `AbstractMethodError`, and nowhere else: the other tests run on the unrewritten class
  * path. `apply-sql` is [[weir.cli.applysql.StagedStartSuite]]'s.
  */
class StagedCommandsSuite extends CatsEffectSuite:

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

  test("serve and load: 300 requests from the staged client to the staged server") {
    val port = TestPg.freePort()
    val args = List("serve", "--port", port.toString, "--delay", "0ms")
    Resource
      .make(IO.blocking(Staged.start(args, "", Map.empty))) { case (server, _, _) =>
        IO.blocking { server.destroy(); server.waitFor() }.void
      }
      .use { _ =>
        listening(port) >>
          staged("load", s"http://127.0.0.1:$port/{id}", "-n", "300", "-c", "10", "--no-live")
            .map(assertClean(_, "300"))
      }
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
