package weir.cli.applysql

import cats.effect.IO
import io.circe.parser.parse
import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.Files
import munit.CatsEffectSuite
import scala.concurrent.duration.*
import weir.cli.Forked
import weir.cli.common.JavaCommand
import weir.postgres.{PgSession, PgTarget, TempPaths, TestPg}

/** `weir apply-sql -`: standard input applied as one file, streamed from a real pipe written by the
  * test while the command reads it (a JVM of its own), as `pg_dump db | weir apply-sql -` would.
  */
class ApplySqlStdinSuite extends CatsEffectSuite with TempPaths.Cleanup:

  override def munitIOTimeout: Duration = 3.minutes

  private val hang = 2.minutes

  /** Starts `weir apply-sql - ... more` on `target` (its standard input a pipe), its output sent as
    * `output` says.
    */
  private def started(
      target: PgTarget,
      more: List[String],
      output: ProcessBuilder => ProcessBuilder
  ): IO[Process] = IO.blocking {
    val url = target.show.replace(":***@", "@")
    val args = List("apply-sql", "-", "--url", url, "--no-live") ++ more
    output(new ProcessBuilder(JavaCommand(Nil, "weir.cli.Launcher", args)*)).start()
  }

  /** Runs `weir apply-sql - --format json` with `input` written to its standard input in 64 KB
    * pieces: its exit code, stdout and stderr.
    */
  private def weir(target: PgTarget, input: Array[Byte]): IO[(Int, String, String)] =
    val out = tempPaths.file("weir-stdin-", ".out")
    val err = tempPaths.file("weir-stdin-", ".err")
    started(
      target,
      List("--format", "json"),
      _.redirectOutput(out.toFile).redirectError(err.toFile)
    )
      .flatMap { process =>
        IO.blocking {
          val pipe = process.getOutputStream
          try input.grouped(64 * 1024).foreach(pipe.write)
          finally pipe.close()
          val code = Forked.ended(process, hang, Files.readString(err))
          (code, Files.readString(out), Files.readString(err))
        }
      }

  /** Until weir apply-sql's session on `target` runs a COPY (the command has begun its file). */
  private def copying(target: PgTarget): IO[Unit] =
    scalar(
      target,
      "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'weir apply-sql' AND query LIKE 'COPY%'"
    ).flatMap(n => if n.contains("0") then IO.sleep(100.millis) >> copying(target) else IO.unit)

  private def scalar(target: PgTarget, sql: String): IO[Option[String]] =
    PgSession.open[IO](target).use(_.query(sql)).map(_.headOption.flatMap(_.head))

  private def copyOf(rows: Int, after: String): Array[Byte] =
    val body = (1 to rows).map(i => s"$i\trow $i\n").mkString
    ("\\set ON_ERROR_STOP on\nCREATE TABLE piped (id int, name text);\n" +
      s"COPY piped FROM stdin;\n$body\\.\n$after").getBytes(UTF_8)

  test("standard input from a pipe is applied whole: every row, its bytes counted") {
    val input = copyOf(200000, "INSERT INTO piped VALUES (0, 'last');\n")
    for
      db <- TestPg.database("stdin")
      ran <- weir(db, input)
      rows <- scalar(db, "SELECT count(*) FROM piped")
    yield
      val (code, out, err) = ran
      assertEquals(code, 0, err)
      assertEquals(rows, Some("200001"))
      val json = parse(out).fold(e => fail(s"$e: $out"), identity).hcursor
      assertEquals(json.get[Long]("copy_rows"), Right(200000L), out)
      assertEquals(json.get[Long]("bytes"), Right(input.length.toLong), out)
      assertEquals(
        json.downField("files").downArray.get[String]("name"),
        Right("<stdin>"),
        out
      )
  }

  test("a failing statement after a piped COPY: exit 1 at <stdin>:line, nothing applied") {
    val input = copyOf(1000, "SELECT 1;\nSELECT nope;\n")
    for
      db <- TestPg.database("stdin")
      ran <- weir(db, input)
      table <- scalar(db, "SELECT to_regclass('piped')::text")
    yield
      val (code, _, err) = ran
      assertEquals(code, 1, err)
      assert(err.contains("<stdin>:1006:8: ERROR 42703"), err)
      assert(err.contains("nothing of <stdin> was applied"), err)
      assertEquals(table, None)
  }

  test("Ctrl-C in a COPY while standard input is open and silent: exit 130, nothing applied") {
    val log = tempPaths.file("weir-stdin-", ".log")
    for
      db <- TestPg.database("stdin")
      process <- started(db, Nil, _.redirectOutput(log.toFile).redirectErrorStream(true))
      _ <- IO.blocking {
        val pipe = process.getOutputStream
        pipe.write("CREATE TABLE piped (id int);\nCOPY piped FROM stdin;\n1\n".getBytes(UTF_8))
        pipe.flush()
      }
      _ <- copying(db).timeout(hang)
      _ <- IO.blocking(new ProcessBuilder("kill", "-INT", process.pid.toString).start().waitFor())
      // The pipe stays open: the command must end without more input (it waited for it before).
      code <- IO.blocking(Forked.ended(process, hang, Files.readString(log)))
      _ <- IO.blocking(process.getOutputStream.close())
      table <- scalar(db, "SELECT to_regclass('piped')::text")
    yield
      val said = Files.readString(log)
      assertEquals(code, 130, said)
      assert(said.contains("interrupted after 0 file(s) applied; <stdin> rolled back"), said)
      assertEquals(table, None)
  }
