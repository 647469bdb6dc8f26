package weir.cli.common

import cats.effect.IO
import com.monovore.decline.Command
import java.nio.file.{Files, Path}
import munit.CatsEffectSuite
import weir.postgres.TempPaths

/** `--format` (html included) and `--report FILE.html`: parsed, refused with the option's name when
  * the file cannot be written, and the file written with the page.
  */
class OutputSuite extends CatsEffectSuite with TempPaths.Cleanup:

  private val command = Command("test", "")(Output.opts)
  private def parse(args: String*) = command.parse(args.toList)

  test("defaults: text on stdout, no file") {
    assertEquals(parse(), Right(Output(Output.Stdout.Plain(Args.Format.Text), None)))
  }

  test("--format html and --report together") {
    assertEquals(
      parse("--format", "HTML", "--report", "out.html"),
      Right(Output(Output.Stdout.Html, Some(Path.of("out.html"))))
    )
  }

  test("a bad format lists every format") {
    assertEquals(
      parse("--format", "pdf").left.map(_.errors),
      Left(List("--format: 'pdf' is not one of: text | markdown | csv | json | html"))
    )
  }

  test("--report into a missing directory is refused before anything runs") {
    val errors = parse("--report", "/nonexistent-dir/report.html").left.map(_.errors)
    assertEquals(
      errors,
      Left(
        List(
          "--report: cannot write /nonexistent-dir/report.html: directory /nonexistent-dir does not exist"
        )
      )
    )
  }

  test("--report naming a directory is refused") {
    val dir = tempPaths.directory("weir-output")
    val errors = parse("--report", dir.toString).left.map(_.errors)
    assertEquals(errors, Left(List(s"--report: $dir is a directory; give a file name")))
  }

  test("emit writes the page, made with the run's provenance, and says false when it cannot") {
    val dir = tempPaths.directory("weir-output")
    val file = dir.resolve("r.html")
    val ok = Output(Output.Stdout.Plain(Args.Format.Csv), Some(file))
    val broken = Output(Output.Stdout.Plain(Args.Format.Csv), Some(dir.resolve("gone/r.html")))
    val page = (p: Provenance) => s"<p>${p.command}</p>"
    val invocation = Invocation(List("test"))
    for
      written <- ok.emit("weir test", invocation, _ => "a,b", page)
      text <- IO(Files.readString(file))
      failed <- broken.emit("weir test", invocation, _ => "a,b", page)
    yield
      assert(written)
      assertEquals(text, "<p>weir test</p>")
      assert(!failed)
  }

  test("the command line is quoted for a shell where it must be") {
    assertEquals(
      Invocation(List("load", "http://h:8000/{id}", "-n", "10", "it's")).commandLine,
      "weir load 'http://h:8000/{id}' -n 10 'it'\\''s'"
    )
  }
