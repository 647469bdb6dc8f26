package weir.postgres

import cats.effect.IO
import java.nio.file.{Files, Path}
import munit.CatsEffectSuite
import scala.concurrent.duration.*

/** psql's `\q` in an applied file, against a real PostgreSQL ([[TestPg]]) and psql 15 itself: it
  * ends the file it is in (an included file returns to the line after its `\i`, the next file goes
  * on), not in an `\if` branch not taken; nothing after it is read, and a migration that ends with
  * it is recorded with the checksum of its whole file.
  */
class QuitSuite extends CatsEffectSuite with TempPaths.Cleanup:
  import ApplyFixtures.*

  override def munitIOTimeout: Duration = 3.minutes

  // Two files and the file main.sql includes, in a directory of their own.
  private def files: IO[(SqlFile, SqlFile)] = IO.blocking {
    val dir = tempPaths.directory("weir-quit-")
    def write(name: String, text: String) = Files.writeString(dir.resolve(name), text)
    write(
      "inc.sql",
      """INSERT INTO seen (what) VALUES ('inc 1');
        |\if false
        |\q
        |\endif
        |INSERT INTO seen (what) VALUES ('inc 2');
        |\q
        |INSERT INTO seen (what) VALUES ('inc never');
        |""".stripMargin
    )
    val main = write(
      "main.sql",
      s"""CREATE TABLE seen (n serial, what text);
         |INSERT INTO seen (what) VALUES ('main 1');
         |\\echo main one
         |\\i ${dir.resolve("inc.sql")}
         |INSERT INTO seen (what) VALUES ('main 2');
         |\\if true
         |\\echo quitting
         |\\q
         |\\endif
         |INSERT INTO seen (what) VALUES ('never');
         |\\bogus a line psql never reads
         |""".stripMargin
    )
    val next = write("next.sql", "\\echo next\nINSERT INTO seen (what) VALUES ('next');\n")
    def sql(p: Path) = SqlFile(p, p.toString, Files.size(p), transactional = true)
    (sql(main), sql(next))
  }

  test("\\q ends its file as psql's does: an included one returns, the next file goes on") {
    val rows = "SELECT string_agg(what, ', ' ORDER BY n) FROM seen"
    for
      both <- files
      (main, next) = both
      ours <- TestPg.database("quit_weir")
      theirs <- TestPg.database("quit_psql")
      echoed <- PgSession.open[IO](ours).use { session =>
        SqlApplier.create[IO](session, ApplySettings.default).flatMap { applier =>
          applier.start(List(main, next)).use(run => run.report.map((_, run.progress.echoed())))
        }
      }
      printed <- TestPg.psql(theirs, s"\\i ${main.path}\n\\i ${next.path}\n")
      ourRows <- scalar(ours, rows)
      theirRows <- scalar(theirs, rows)
    yield
      val (report, said) = echoed
      assertEquals(report.outcome, ApplyReport.Outcome.Completed)
      assertEquals(report.files.size, 2)
      assertEquals(ourRows, Some("main 1, inc 1, inc 2, main 2, next"))
      assertEquals(ourRows, theirRows)
      assertEquals(said, List("main one", "quitting", "next"))
      assertEquals(said, printed)
  }

  test("a migration that ends with \\q is recorded with its whole file's checksum, applied once") {
    for
      db <- TestPg.database("quit_migration")
      dir <- IO.blocking(tempPaths.directory("weir-quit-mig-"))
      _ <- IO.blocking(
        Files.writeString(
          dir.resolve("V1__first.sql"),
          "CREATE TABLE a (x int);\n\\q\n" + ("-- a long tail psql never reads\n" * 10000)
        )
      )
      first <- PgSession
        .open[IO](db)
        .use(Migrations.migrate[IO](_, Migrations.Source.Directory(dir)))
      again <- PgSession
        .open[IO](db)
        .use(Migrations.migrate[IO](_, Migrations.Source.Directory(dir)))
    yield
      assertEquals(first.map(_.report.files.size), Right(1))
      assertEquals(again.map(r => (r.report.files.size, r.alreadyApplied)), Right((0, 1)))
  }
