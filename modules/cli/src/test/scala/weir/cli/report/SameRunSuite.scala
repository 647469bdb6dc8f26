package weir.cli.report

import cats.effect.{ExitCode, IO}
import java.io.{ByteArrayOutputStream, PrintStream}
import java.nio.file.Files
import munit.CatsEffectSuite
import scala.concurrent.duration.*
import weir.cli.Main
import weir.http.{Delay, DelayServer, ServerConfig}
import weir.postgres.{TempPaths, TestPg}

/** One real run of each command with `--format json --report FILE.html`: the page on disk is
  * well-formed and self-contained, and the data it embeds is the JSON the same run printed.
  */
class SameRunSuite extends CatsEffectSuite with TempPaths.Cleanup:
  override def munitIOTimeout: Duration = 120.seconds

  // Console.out prints with System.out.println on a blocking thread: capture it for one run.
  private def stdout(args: String*): IO[(ExitCode, String)] =
    IO.blocking {
      val buffer = new ByteArrayOutputStream
      val saved = System.out
      System.setOut(new PrintStream(buffer, true, "UTF-8"))
      (buffer, saved)
    }.bracket { (buffer, _) =>
      Main.run(args.toList).map(code => (code, buffer.toString("UTF-8")))
    }((_, saved) => IO.blocking(System.setOut(saved)))

  /** Runs `command` with `--format json --report FILE.html`; checks the exit code and the page
    * against the JSON printed, and returns the page.
    */
  private def sameRun(command: String): IO[org.w3c.dom.Document] =
    val file = tempPaths.directory("weir-report").resolve("report.html")
    val args = command.split(" ").toList ++ List("--format", "json", "--report", file.toString)
    stdout(args*).map { (code, json) =>
      assertEquals(code, ExitCode(0))
      PageChecks.check(Files.readString(file), json.trim)
    }

  test("weir compare: the HTML report of a run carries the JSON that run printed") {
    sameRun(
      "compare --scenario slow-consumer --strategy weir,stream --scale 0.01 --no-live --runtime fixed:4"
    )
      .map { doc =>
        val command = PageChecks.embedded(doc, "weir-provenance").hcursor.get[String]("command")
        assert(command.exists(_.startsWith("weir compare --scenario slow-consumer")), command)
      }
  }

  test("weir runtimes: the HTML report of a run carries the JSON that run printed") {
    sameRun(
      "runtimes --processes 2,4 --cycles 10 --warm-up 100 --rounds 2 --runtime wsp,fixed:2 --burst pure"
    )
  }

  test("weir load: the HTML report of a run carries the JSON that run printed, timeline included") {
    val server = DelayServer.resource[IO](
      ServerConfig.default
        .withDelay(Delay.Fixed(20.millis))
        .withPort(0)
        .flatMap(_.withThreads(1))
        .fold(e => fail(e.getMessage), identity)
    )
    server.use { s =>
      val target = s"http://127.0.0.1:${s.port}/{id}"
      sameRun(s"load $target --duration 2500ms -c 20 --warm-up 0 --no-live").map { doc =>
        val data = PageChecks.embedded(doc, "weir-data").hcursor
        val intervals = data.downField("timeline").values.toList.flatten.map(_.hcursor)
        def all(field: String) = intervals.map(_.get[Double](field).toOption.get)
        // Back to back from the start, none empty: 2.5 s at a 1 s tick make at least two. (Their
        // lengths are the real times between ticks, about a second but not exactly on a busy
        // machine: exact lengths are LoadTimelineSuite's, under virtual time.)
        assert(intervals.size >= 2, intervals)
        assertEquals(all("start_s").head, 0.0)
        all("start_s").zip(all("length_s")).sliding(2).foreach {
          case List((s0, l0), (s1, _)) => assertEqualsDouble(s0 + l0, s1, 1e-9)
          case _                       => ()
        }
        assert(all("length_s").forall(_ > 0), all("length_s"))
        assertEquals(all("finished").sum, data.get[Double]("finished").toOption.get)
        assertEquals(doc.getElementsByTagName("figure").getLength, 4)
      }
    }
  }

  test("weir apply-sql: the HTML report of a run carries the JSON that run printed") {
    TestPg.database("report").flatMap { target =>
      val file = tempPaths.file("weir-report", ".sql")
      val rows = (1 to 5000).map(i => s"$i\tname $i").mkString("\n")
      Files
        .writeString(file, s"CREATE TABLE t (id int, name text);\nCOPY t FROM STDIN;\n$rows\n\\.\n")
      val auth = target.user + target.password.fold("")(":" + _)
      val url = s"postgresql://$auth@${target.host}:${target.port}/${target.database}"
      sameRun(s"apply-sql $file --url $url --no-live").map { doc =>
        val data = PageChecks.embedded(doc, "weir-data").hcursor
        assertEquals(data.get[Long]("copy_rows"), Right(5000L))
        // The timeline starts at zero and its last point is the whole apply.
        val points = data.downField("timeline").values.toList.flatten.map(_.hcursor)
        assertEquals(points.head.get[Long]("bytes"), Right(0L))
        assertEquals(points.last.get[Long]("bytes"), Right(Files.size(file)))
        assertEquals(points.last.get[Long]("copy_rows"), Right(5000L))
      }
    }
  }

  test("--report into a directory that does not exist: exit 2, nothing run") {
    Main
      .run(List("runtimes", "--report", "/nonexistent-dir/r.html"))
      .map(code => assertEquals(code, ExitCode(2)))
  }
