package weir.cli.load

import cats.effect.{IO, Resource}
import io.circe.parser.parse
import java.nio.file.{Files, Path}
import munit.CatsEffectSuite
import scala.concurrent.duration.*
import weir.cli.InProcess
import weir.cli.common.Exit
import weir.http.{Delay, DelayServer, Faults, ServerConfig}
import weir.postgres.TempPaths

/** `weir load` end to end, as a user runs it (in process: the same `Main`), against a real `weir
  * serve` on a loopback port: exit codes, the report on stdout, and that it always ends.
  */
class LoadCommandSuite extends CatsEffectSuite with TempPaths.Cleanup:

  override def munitIOTimeout: Duration = 90.seconds

  private def server(delay: Delay): Resource[IO, DelayServer] =
    DelayServer.resource[IO](
      ServerConfig.default
        .withDelay(delay)
        .withPort(0)
        .flatMap(_.withThreads(1))
        .fold(e => fail(e.getMessage), identity)
    )

  private def weir(args: String*): IO[(cats.effect.ExitCode, String)] =
    InProcess.run(args*).map((code, out, _) => (code, out))

  private def urlFile(lines: Seq[String]): IO[Path] = IO.blocking {
    val file = tempPaths.file("weir-urls", ".txt")
    Files.write(file, java.util.Arrays.asList(lines*))
  }

  test("--urls FILE --duration 2s against a slow server ends with a report within the grace") {
    server(Delay.Fixed(30.seconds)).use { s =>
      urlFile((0 until 100000).map(i => s"http://127.0.0.1:${s.port}/$i")).flatMap { file =>
        val args = List("load", "--urls", file.toString, "--duration", "2s", "--grace", "1s")
        weir((args ++ List("-c", "50", "--warm-up", "0", "--no-live", "--format", "json"))*)
          .timeout(60.seconds) // the old launcher hung here for ever; this only guards the suite
          .map { (code, out) =>
            val json = parse(out).fold(e => fail(s"$e: $out"), identity).hcursor
            assertEquals(json.get[String]("ending"), Right("durationreached"))
            // Every request launched was still waiting on the server (not how many: on a loaded
            // machine fewer than the 50 slots may have launched in the 2 s).
            val launched = json.get[Long]("launched").fold(e => fail(e.getMessage), identity)
            assert(launched >= 1 && launched <= 50, out)
            assertEquals(json.get[Long]("unfinished"), Right(launched))
            assertEquals(code, Exit.Ok)
          }
      }
    }
  }

  test("a bad line is reported with its line number; the exit code says the load had failures") {
    server(Delay.Fixed(1.milli)).use { s =>
      val lines = (0 until 200).map(i =>
        if i == 150 then "garbage here" else s"http://127.0.0.1:${s.port}/$i"
      )
      urlFile(lines).flatMap { file =>
        weir("load", "--urls", file.toString, "-c", "8", "--warm-up", "0", "--no-live").map {
          (code, out) =>
            assert(out.contains("line 151"), out)
            assert(out.contains("garbage here"), out)
            assertEquals(code, Exit.Failed)
        }
      }
    }
  }

  test("JSON counts 500s as failures beside the error rate; CSV has status columns, no null") {
    val faults = Faults.of(0.5, 0, 0).fold(e => fail(e.getMessage), identity)
    DelayServer
      .resource[IO](
        ServerConfig.default
          .withDelay(Delay.Fixed(1.milli))
          .withFaults(faults)
          .withPort(0)
          .fold(e => fail(e.getMessage), identity)
      )
      .use { s =>
        val url = s"http://127.0.0.1:${s.port}/{id}"
        val common = List("load", url, "-n", "200", "-c", "10", "--warm-up", "0", "--no-live")
        for
          jsonRun <- weir((common ++ List("--format", "json", "--max-error-rate", "1"))*)
          csvRun <- weir((common ++ List("--format", "csv"))*)
        yield
          val ((jsonCode, json), (_, csv)) = (jsonRun, csvRun)
          val c = parse(json).fold(e => fail(s"$e: $json"), identity).hcursor
          val failures = c.get[Long]("failures").toOption.get
          assertEquals(c.downField("statuses").get[Long]("500").toOption, Some(failures))
          assertEqualsDouble(c.get[Double]("error_rate").toOption.get, failures / 200.0, 1e-9)
          assertEquals(c.get[Int]("retries"), Right(0))
          assertEquals(jsonCode, Exit.Ok)
          val Array(header, row) = csv.trim.split("\n")
          assert(header.split(",").contains("status_500"), header)
          assert(!csv.contains("null"), csv)
          assertEquals(header.split(",").length, row.split(",", -1).length)
      }
  }

  test("-n N with a URL without {id} requests that URL N times, as oha, hey and ab do") {
    server(Delay.Fixed(1.milli)).use { s =>
      val url = s"http://127.0.0.1:${s.port}/health?check=1"
      for
        ran <- weir(
          "load",
          url,
          "-n",
          "120",
          "-c",
          "7",
          "--warm-up",
          "0",
          "--no-live",
          "--format",
          "json"
        )
        seen <- s.stats[IO]
      yield
        val (code, json) = ran
        assertEquals(code, Exit.Ok, json)
        val c = parse(json).fold(e => fail(s"$e: $json"), identity).hcursor
        assertEquals(c.get[Long]("finished"), Right(120L), json)
        assertEquals(c.get[Long]("failures"), Right(0L), json)
        assertEquals(seen.requests, 120L)
    }
  }

  test("an empty URL file: nothing requested, exit 2") {
    urlFile(List("# only a comment", "")).flatMap { file =>
      weir("load", "--urls", file.toString, "--warm-up", "0", "--no-live").map((code, _) =>
        assertEquals(code, Exit.BadInput)
      )
    }
  }

  test("a dead server: a clear message, exit 2, nothing run") {
    server(Delay.Fixed(1.milli)).use(s => IO.pure(s.port)).flatMap { port =>
      weir("load", s"http://127.0.0.1:$port/{id}", "-n", "10", "--no-live").map((code, out) =>
        assertEquals((code, out), (Exit.BadInput, ""))
      )
    }
  }

  test("a host that does not resolve is said so, not taken for a server that is down") {
    // `.invalid` never resolves (RFC 6761).
    InProcess.run("load", "http://weir-test.invalid/{id}", "-n", "10", "--no-live").map {
      (code, out, err) =>
        assertEquals((code, out), (Exit.BadInput, ""))
        assert(err.contains("weir-test.invalid:80: no such host"), err)
        assert(!err.contains("is the server running"), err)
    }
  }
