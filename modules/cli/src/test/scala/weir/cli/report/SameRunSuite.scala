package weir.cli.report

import cats.effect.{ExitCode, IO}
import java.io.{ByteArrayOutputStream, PrintStream}
import java.nio.file.Files
import munit.CatsEffectSuite
import scala.concurrent.duration.*
import weir.cli.Main

/** One real run of each command with `--format json --report FILE.html`: the page on disk is
  * well-formed and self-contained, and the data it embeds is the JSON the same run printed.
  */
class SameRunSuite extends CatsEffectSuite:
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

  test("weir compare: the HTML report of a run carries the JSON that run printed") {
    val file = Files.createTempDirectory("weir-report").resolve("compare.html")
    stdout(
      "compare",
      "--scenario",
      "slow-consumer",
      "--strategy",
      "weir,stream",
      "--scale",
      "0.01",
      "--no-live",
      "--runtime",
      "fixed:4",
      "--format",
      "json",
      "--report",
      file.toString
    ).map { (code, json) =>
      assertEquals(code, ExitCode(0))
      val html = Files.readString(file)
      val doc = PageChecks.check(html, json.trim)
      val command = PageChecks.embedded(doc, "weir-provenance").hcursor.get[String]("command")
      assert(command.exists(_.startsWith("weir compare --scenario slow-consumer")), command)
    }
  }

  test("weir runtimes: the HTML report of a run carries the JSON that run printed") {
    val file = Files.createTempDirectory("weir-report").resolve("runtimes.html")
    stdout(
      "runtimes",
      "--processes",
      "2,4",
      "--cycles",
      "10",
      "--warm-up",
      "100",
      "--rounds",
      "2",
      "--runtime",
      "wsp,fixed:2",
      "--burst",
      "pure",
      "--format",
      "json",
      "--report",
      file.toString
    ).map { (code, json) =>
      assertEquals(code, ExitCode(0))
      PageChecks.check(Files.readString(file), json.trim)
    }
  }

  test("--report into a directory that does not exist: exit 2, nothing run") {
    Main
      .run(List("runtimes", "--report", "/nonexistent-dir/r.html"))
      .map(code => assertEquals(code, ExitCode(2)))
  }
