package weir.postgres

import cats.effect.IO
import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Path}
import munit.CatsEffectSuite
import scala.concurrent.duration.*

/** psql's `\i` and `\ir` in an applied file ([[SqlIncludes]]), against a real PostgreSQL
  * ([[TestPg]]): the included files' statements and COPY bodies run where the line stands, in the
  * including file's transaction; their errors name the included file; a missing file, a loop and an
  * include in a migration are refused.
  */
class IncludeSuite extends CatsEffectSuite with TempPaths.Cleanup:
  import ApplyFixtures.*

  override def munitIOTimeout: Duration = 3.minutes

  // Files written in a new directory (subdirectories too): the directory.
  private def tree(files: (String, String)*): IO[Path] = IO.blocking {
    val dir = tempPaths.directory("weir-include-")
    files.foreach { (name, text) =>
      val path = dir.resolve(name)
      Files.createDirectories(path.getParent)
      Files.writeString(path, text)
    }
    dir
  }

  private def at(dir: Path, name: String): SqlFile =
    val path = dir.resolve(name)
    SqlFile(path, name, Files.size(path), transactional = true)

  test("the lexer reads \\i, \\include, \\ir and \\include_relative lines, quoted or not") {
    val text = "\\i a.sql\nSELECT 1;\n\\include_relative 'b c.sql'\n\\ir d.sql\r\n\\include e.sql"
    fs2.Stream
      .emits(text.getBytes(UTF_8))
      .covary[IO]
      .through(SqlSplitter.pipe[IO]("m.sql"))
      .compile
      .toList
      .map { pieces =>
        val seen = pieces.map {
          case SqlPiece.Include(path, relative, at, _)   => s"${at.line}:$path:$relative"
          case SqlPiece.Statement(sql, _, _, _, _, _, _) => sql
          case other                                     => other.toString
        }
        assertEquals(
          seen,
          List("1:a.sql:false", "SELECT 1", "3:'b c.sql':true", "4:d.sql:true", "5:e.sql:false")
        )
      }
  }

  test("included files run where their line stands, nested, with COPY bodies, in one transaction") {
    for
      dir <- tree(
        "sql/tables.sql" -> "CREATE TABLE inc (n int, what text);\n\\ir rows/first.sql\n",
        "sql/rows/first.sql" -> "COPY inc FROM stdin;\n2\tcopied\n3\tcopied\n\\.\n",
        "sql/last.sql" -> "INSERT INTO inc VALUES (4, 'last');\n"
      )
      _ <- IO.blocking {
        val text = "\\ir sql/tables.sql\nINSERT INTO inc VALUES (1, 'main');\n" +
          s"\\i ${dir.resolve("sql/last.sql")}\n"
        Files.writeString(dir.resolve("main.sql"), text)
      }
      db <- TestPg.database("include_ok")
      report <- apply(db, List(at(dir, "main.sql")))
      rows <- scalar(db, "SELECT string_agg(n || ' ' || what, ',' ORDER BY n) FROM inc")
    yield
      assertEquals(report.outcome, ApplyReport.Outcome.Completed)
      assertEquals(
        report.files.map(f => (f.name, f.statements, f.copyRows)),
        List(("main.sql", 4L, 2L))
      )
      val bytes = List("main.sql", "sql/tables.sql", "sql/rows/first.sql", "sql/last.sql")
        .map(n => Files.size(dir.resolve(n)))
        .sum
      assertEquals(report.files.map(_.bytes), List(bytes))
      assertEquals(rows, Some("1 main,2 copied,3 copied,4 last"))
  }

  test("a failure in an included file names it and rolls the including file back") {
    for
      dir <- tree(
        "main.sql" -> "CREATE TABLE inc2 (n int);\n\\ir part.sql\n",
        "part.sql" -> "INSERT INTO inc2 VALUES (1);\nINSERT INTO inc2 VALUES ('x');\n"
      )
      db <- TestPg.database("include_failed")
      report <- apply(db, List(at(dir, "main.sql")))
      table <- scalar(db, "SELECT to_regclass('inc2')::text")
    yield
      report.outcome match
        case ApplyReport.Outcome.Failed(e: ApplyError.StatementFailed) =>
          assertEquals((e.statement.file, e.statement.line), (dir.resolve("part.sql").toString, 2L))
          assert(e.getMessage.contains("nothing of main.sql was applied"), e.getMessage)
        case other => fail(s"expected a failed statement, got $other")
      assertEquals(table, None)
  }

  test("a missing file and a loop fail at the \\i line, nothing applied") {
    for
      dir <- tree(
        "missing.sql" -> "CREATE TABLE inc3 (n int);\n\\i no/such.sql\n",
        "loop.sql" -> "CREATE TABLE inc4 (n int);\n\\ir again.sql\n",
        "again.sql" -> "SELECT 1;\n\\ir loop.sql\n"
      )
      db <- TestPg.database("include_bad")
      missing <- apply(db, List(at(dir, "missing.sql")))
      looped <- apply(db, List(at(dir, "loop.sql")))
      tables <- scalar(db, "SELECT count(*) FROM pg_class WHERE relname IN ('inc3', 'inc4')")
    yield
      def message(r: ApplyReport) = r.outcome match
        case ApplyReport.Outcome.Failed(e) => e.getMessage
        case other                         => fail(s"expected a failure, got $other")
      assert(
        message(missing).startsWith(
          "missing.sql:2:1: \\i no/such.sql: no such file (\\i reads it from the working directory"
        ),
        message(missing)
      )
      assert(
        message(looped).startsWith(s"${dir.resolve("again.sql")}:2:1: \\i loop.sql: "),
        message(looped)
      )
      assert(
        message(looped).endsWith("loop.sql: already being read: the includes loop"),
        message(looped)
      )
      assertEquals(tables, Some("0"))
  }

  test("a migration that includes a file is refused before anything is applied") {
    for
      dir <- tree(
        "m/0001_a.sql" -> "CREATE TABLE inc5 (n int);\n",
        "m/0002_b.sql" -> "\\ir ../more.sql\n",
        "more.sql" -> "SELECT 1;\n"
      )
      db <- TestPg.database("include_migration")
      result <- PgSession
        .open[IO](db)
        .use(s => Migrations.migrate[IO](s, Migrations.Source.Directory(dir.resolve("m"))))
      table <- scalar(db, "SELECT to_regclass('inc5')::text")
    yield
      assert(
        result.left.exists(
          _.getMessage.startsWith("0002_b.sql:1:1: \\i ../more.sql in a migration: its checksum")
        ),
        result.toString
      )
      assertEquals(table, None)
  }
