package weir.cli

import java.nio.file.{Files, Path}
import munit.Assertions.*

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
