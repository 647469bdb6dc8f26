package weir.cli.applysql

import cats.effect.IO
import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Path}
import munit.CatsEffectSuite
import scala.concurrent.duration.*
import weir.cli.Forked
import weir.postgres.{PgSession, PgTarget, TempPaths, TestPg}

/** `weir apply-sql` in a JVM of its own with a 16 MB heap, on a file whose one statement (a 40 MB
  * string literal) is larger than the heap: the splitter runs out of memory collecting it. Before
  * docs/adr/0013-apply-sql-speed.md's "Round 3" the process hung there for good (every thread
  * parked, SIGTERM ignored); now it must exit 3 with a message that names the file, the line and
  * the heap to give, the file rolled back on a real PostgreSQL ([[TestPg]]). Waiting for the
  * process is bounded only as a guard: a hang fails the test (the process is then killed).
  */
class ApplySqlFatalSuite extends CatsEffectSuite with TempPaths.Cleanup:

  override def munitIOTimeout: Duration = 3.minutes

  private val hang = 90.seconds

  private def bigStatement: IO[Path] = IO.blocking {
    val path = tempPaths.file("weir-oom-", ".sql")
    val out = Files.newOutputStream(path)
    try
      out.write("CREATE TABLE u (a text);\nINSERT INTO u VALUES ('".getBytes(UTF_8))
      val block = Array.fill[Byte](1 << 20)('x'.toByte)
      (1 to 40).foreach(_ => out.write(block))
      out.write("');\n".getBytes(UTF_8))
    finally out.close()
    path
  }

  /** Runs `weir apply-sql file` with `-Xmx16m`: its exit code and stderr (stdout is discarded). */
  private def weir(file: Path, target: PgTarget): IO[(Int, String)] = IO.blocking {
    val args = List("apply-sql", file.toString, "--url", target.show.replace(":***@", "@"))
    Forked.run(
      List("-Xmx16m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"),
      "weir.cli.Launcher",
      args :+ "--no-live",
      hang
    )
  }

  test("a statement larger than a 16 MB heap: exit 3, the message, the file rolled back") {
    for
      db <- TestPg.database("oom")
      file <- bigStatement
      result <- weir(file, db)
      table <- PgSession
        .open[IO](db)
        .use(_.query("SELECT to_regclass('u')::text"))
        .map(_.headOption.flatMap(_.head))
    yield
      val (code, stderr) = result
      val name = file.toString
      assertEquals(code, 3, stderr)
      assert(
        stderr.startsWith(s"weir apply-sql: out of memory while reading $name at line 2; "),
        stderr
      )
      assert(
        stderr.contains(s"nothing of $name was applied: its transaction was rolled back"),
        stderr
      )
      assert(stderr.contains("Give the JVM more heap than its "), stderr)
      assert(stderr.contains("JAVA_OPTS=-Xmx256m"), stderr)
      assert(!stderr.contains("\tat "), s"a stack trace: $stderr")
      assertEquals(table, None)
  }
