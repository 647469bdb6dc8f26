package weir.cli.applysql

import cats.effect.IO
import com.monovore.decline.Command
import java.io.ByteArrayOutputStream
import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.Files
import java.util.concurrent.TimeUnit
import munit.CatsEffectSuite
import scala.concurrent.duration.*
import weir.cli.common.JavaCommand
import weir.postgres.{PgSession, PgTarget, TempPaths, TestPg}

/** How `weir apply-sql` finds its connection as psql does, on a real PostgreSQL whose
  * [[TestPg.passwordUser]] must give a password (SCRAM): libpq's variables for the URI's parameters
  * (`PGOPTIONS`, `PGSSLMODE`) take effect; a missing password says where to give it; psql's `-W`
  * asks for it on a real terminal (a pseudo-terminal made by `script`), and refuses without one.
  */
class ApplySqlPasswordSuite extends CatsEffectSuite with TempPaths.Cleanup:

  override def munitIOTimeout: Duration = 3.minutes

  private def plan(env: Map[String, String], args: String*): ApplySqlPlan =
    Command("apply-sql", "")(ApplySqlOptions.opts(env))
      .parse(args.toList)
      .fold(h => fail(h.errors.mkString("; ")), identity)

  private def sqlFile(text: String): String =
    val f = tempPaths.file("weir-password-", ".sql")
    Files.writeString(f, text)
    f.toString

  private def refusal(report: ApplySqlReport): String = report match
    case ApplySqlReport.Refused(e) => e.getMessage
    case other                     => fail(s"expected a refusal, got $other")

  // libpq's variables naming where `target` is, as psql would be given them.
  private def variables(target: PgTarget): Map[String, String] = Map(
    "PGHOST" -> target.host,
    "PGPORT" -> target.port.toString,
    "PGUSER" -> target.user,
    "PGDATABASE" -> target.database
  )

  test("PGOPTIONS and PGSSLMODE take effect as in psql; a URI's parameter wins over them") {
    for
      db <- TestPg.database("pgoptions")
      _ <- PgSession.open[IO](db).use(_.update("CREATE SCHEMA elsewhere"))
      file = sqlFile("CREATE TABLE placed (a int);\n")
      env = variables(db) + ("PGOPTIONS" -> "-c search_path=elsewhere")
      applied <- ApplySqlCommand.execute(plan(env, file, "--no-live"))
      schema <- PgSession
        .open[IO](db)
        .use(
          _.query("SELECT table_schema FROM information_schema.tables WHERE table_name = 'placed'")
        )
      ssl = plan(variables(db) + ("PGSSLMODE" -> "require"), file, "--no-live")
      refused <- ApplySqlCommand.execute(ssl)
      overridden = plan(
        Map("PGSSLMODE" -> "require"),
        file,
        "-d",
        db.show.replace(":***@", "@") + "?sslmode=disable"
      )
    yield
      assertEquals(applied.exitCode, 0, applied.toString)
      assertEquals(schema.map(_.head).toList, List(Option("elsewhere")))
      assume(TestPg.ownServer, "the server these tests start has no TLS")
      assertEquals(ssl.target.show, db.show + "?sslmode=require")
      assertEquals(refused.exitCode, 2)
      assert(refusal(refused).contains("does not support SSL"), refusal(refused))
      assertEquals(overridden.target.show, db.show + "?sslmode=disable")
  }

  test("no password for a user that needs one: exit 2, saying where to give it") {
    assume(TestPg.ownServer, "the password user is made on the server these tests start")
    val target = TestPg.admin.withDatabase("postgres").withUser(TestPg.passwordUser)
    ApplySqlCommand
      .execute(plan(variables(target), sqlFile("SELECT 1;\n"), "--no-live"))
      .map { report =>
        assertEquals(report.exitCode, 2)
        val text = refusal(report)
        assert(text.contains("no password was provided"), text)
        assert(text.contains("PGPASSWORD") && text.contains("~/.pgpass"), text)
      }
  }

  // `weir apply-sql -W ...` in a JVM of its own on a pseudo-terminal (`script`), typing `typed`
  // once the prompt shows: its exit code and everything the terminal showed.
  private def onTerminal(args: List[String], typed: String): (Int, String) =
    val command = JavaCommand(Nil, "weir.cli.Launcher", "apply-sql" :: args)
      .map(a => "'" + a.replace("'", "'\\''") + "'")
      .mkString(" ")
    val builder = new ProcessBuilder("script", "-qefc", command, "/dev/null")
      .redirectErrorStream(true)
    builder.environment.put("PGPASSFILE", "/nonexistent/pgpass")
    builder.environment.remove("PGPASSWORD")
    val process = builder.start()
    val shown = new ByteArrayOutputStream
    val reader = new Thread(() =>
      process.getInputStream.transferTo(shown); ()
    )
    reader.setDaemon(true)
    reader.start()
    val deadline = System.nanoTime + 2.minutes.toNanos
    while !shown.toString(UTF_8).contains("Password for user") && process.isAlive &&
      System.nanoTime < deadline
    do Thread.sleep(50)
    process.getOutputStream.write(typed.getBytes(UTF_8))
    process.getOutputStream.flush()
    if !process.waitFor(2, TimeUnit.MINUTES) then
      process.destroyForcibly().waitFor()
      fail(s"still running after 2 minutes: ${shown.toString(UTF_8)}")
    reader.join(10_000)
    (process.exitValue, shown.toString(UTF_8))

  test("-W asks on the terminal, without echo: the right password applies, a wrong one exits 2") {
    assume(TestPg.ownServer, "the password user is made on the server these tests start")
    val target = TestPg.admin.withDatabase("postgres").withUser(TestPg.passwordUser)
    val connection = List(
      "-W",
      "-h",
      target.host,
      "-p",
      target.port.toString,
      "-U",
      target.user,
      "-d",
      "postgres",
      "--no-live"
    )
    IO.blocking {
      val right = onTerminal(sqlFile("SELECT 1;\n") :: connection, TestPg.passwordOfUser + "\n")
      val wrong = onTerminal(sqlFile("SELECT 1;\n") :: connection, "not-it\n")
      (right, wrong)
    }.map { case ((rightCode, rightShown), (wrongCode, wrongShown)) =>
      assert(rightShown.contains(s"Password for user ${TestPg.passwordUser}: "), rightShown)
      assertEquals(rightCode, 0, rightShown)
      assert(rightShown.contains("1 file(s) applied"), rightShown)
      assert(!rightShown.contains(TestPg.passwordOfUser), rightShown)
      assertEquals(wrongCode, 2, wrongShown)
      assert(wrongShown.contains("password authentication failed"), wrongShown)
      assert(!wrongShown.contains("not-it"), wrongShown)
    }
  }

  test("-W without a terminal is refused (exit 2), saying what to do instead") {
    val target = TestPg.admin.withDatabase("postgres").withUser(TestPg.passwordUser)
    val (code, err) = weir.cli.Forked.run(
      Nil,
      "weir.cli.Launcher",
      List("apply-sql", "-W", sqlFile("SELECT 1;\n"), "-d", target.show, "--no-live"),
      2.minutes
    )
    assertEquals(code, 2, err)
    assert(err.contains("-W asks for the password on a terminal, and there is none here"), err)
  }
