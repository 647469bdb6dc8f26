package weir.cli

import java.nio.file.{Files, Path}
import munit.Assertions.*
import weir.cli.common.Args.Format

/** Golden files: expected outputs kept under `src/test/resources/golden/`. With
  * `WEIR_GOLDEN_DIR=modules/cli/src/test/resources/golden` set, a mismatch rewrites the file
  * instead of failing (look at the diff before committing it).
  */
object Golden:

  def check(name: String, obtained: String)(using munit.Location): Unit =
    val expected = Option(getClass.getResourceAsStream(s"/golden/$name"))
      .map(in =>
        try new String(in.readAllBytes(), "UTF-8")
        finally in.close()
      )
    sys.env.get("WEIR_GOLDEN_DIR") match
      case Some(dir) if !expected.contains(obtained) =>
        Files.writeString(Path.of(dir, name), obtained): Unit
      case _ =>
        expected match
          case None =>
            fail(s"no golden file golden/$name; run with WEIR_GOLDEN_DIR set to write it")
          case Some(e) => assertNoDiff(obtained, e)

  /** Registers one test per plain format (text, Markdown, CSV) against `name.txt`, `.md`, `.csv`.
    */
  trait Formats:
    self: munit.FunSuite =>

    def goldenFormats(name: String, render: Format => String): Unit =
      List(Format.Text -> "txt", Format.Markdown -> "md", Format.Csv -> "csv").foreach { (f, ext) =>
        test(f.toString.toLowerCase)(Golden.check(s"$name.$ext", render(f)))
      }
