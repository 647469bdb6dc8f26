package weir.postgres

import cats.effect.{IO, SyncIO}
import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.{Files, Path}
import munit.CatsEffectSuite
import org.scalacheck.Gen
import org.scalacheck.rng.Seed
import scala.concurrent.duration.*

/** psql's `\copy ... from FILE` in an applied file ([[PsqlCopy]], [[ClientCopies]]), against a real
  * PostgreSQL ([[TestPg]]): the line is read as psql reads it; the file's rows land in the file's
  * transaction, in chunks of whole lines; a bad row names the data file's line; a missing file,
  * `to`, `stdin` and `program` are refused; a migration may not hold one.
  */
class ClientCopySuite extends CatsEffectSuite with TempPaths.Cleanup:
  import ApplyFixtures.*

  override def munitIOTimeout: Duration = 3.minutes

  private def dir(files: (String, String)*): IO[Path] = IO.blocking {
    val d = tempPaths.directory("weir-copy-")
    files.foreach((name, text) => Files.writeString(d.resolve(name), text))
    d
  }

  private def sqlAt(d: Path, name: String): SqlFile =
    val path = d.resolve(name)
    SqlFile(path, name, Files.size(path), transactional = true)

  private def failure(report: ApplyReport): Throwable = report.outcome match
    case ApplyReport.Outcome.Failed(e) => e
    case other                         => fail(s"expected a failure, got $other")

  test("a \\copy line reads as psql reads it: the COPY it stands for and its file") {
    val home = sys.props("user.home")
    val read = List(
      " people from 'people.csv'" -> Right(("COPY people FROM STDIN", "people.csv")),
      " s.t (a, b) FROM '/tmp/my ''x''.csv' WITH (FORMAT csv, HEADER true);" ->
        Right(("COPY s.t (a, b) FROM STDIN WITH (FORMAT csv, HEADER true)", "/tmp/my 'x'.csv")),
      " \"from\" from data.tsv" -> Right(("COPY \"from\" FROM STDIN", "data.tsv")),
      " t(x) from ~/d.csv csv header" -> Right(("COPY t(x) FROM STDIN csv header", s"$home/d.csv"))
    )
    read.foreach((args, expected) => assertEquals(PsqlCopy.read(args), expected, args))
    val refused = List(
      " t to 'out.csv'" -> "\\copy ... to writes a file",
      " t from stdin" -> "write COPY ... FROM STDIN; with its rows after it",
      " t from pstdin" -> "write COPY ... FROM STDIN; with its rows after it",
      " t from program 'gunzip -c x.gz'" -> "runs no programs",
      " t" -> "\\copy without from",
      " from 'x.csv'" -> "\\copy without a table",
      " t from 'x.csv" -> "an unclosed quote"
    )
    refused.foreach((args, reason) =>
      assert(PsqlCopy.read(args).left.exists(_.contains(reason)), s"$args: ${PsqlCopy.read(args)}")
    )
  }

  test("chunks are whole lines of at most the chunk size, however the reads fall") {
    val line = Gen.choose(0, 40).map(n => "x" * n + "\n")
    val text = Gen.listOf(line).flatMap(ls => Gen.oneOf("", "tail").map(ls.mkString + _))
    val cases = Gen.zip(text, Gen.choose(1, 50), Gen.choose(16, 64))
    (1L to 400L).foreach { n =>
      val (body, read, max) = cases.pureApply(Gen.Parameters.default, Seed(n))
      val bytes = fs2.Stream.emits(body.getBytes(UTF_8)).covary[SyncIO].chunkLimit(read).unchunks
      val chunks = ClientCopies.lines(bytes, max).compile.toList.unsafeRunSync()
      assertEquals(chunks.map(c => new String(c.toArray, UTF_8)).mkString, body)
      assert(chunks.forall(c => c.size <= max && c.nonEmpty), chunks.map(_.size))
      // Every chunk but the last ends a line, unless it holds none (a line longer than max).
      chunks.dropRight(1).foreach { c =>
        assert(c.last.contains('\n'.toByte) || !c.toArray.contains('\n'.toByte), (body, read, max))
      }
    }
  }

  test("the file's rows land in the file's transaction, CSV and text, in many chunks") {
    val csv = "id,name\n" + (1 to 3000)
      .map(i => s"$i,\"name $i, with \"\"quotes\"\"\nand a break\"\n")
      .mkString
    val text = (1 to 2000).map(i => s"$i\tt$i\n").mkString
    for
      // A path in UTF-8, and a line longer than 256 bytes (its options spaced out).
      d <- dir("péople.csv" -> csv, "plain.tsv" -> text)
      _ <- IO.blocking(
        Files.writeString(
          d.resolve("load.sql"),
          "CREATE TABLE people (id int, name text);\n" +
            s"\\copy people (id, name) from '${d.resolve("péople.csv")}' with (format csv," +
            " " * 300 + "header true)\n" +
            s"CREATE TABLE plain (id int, v text);\n\\copy plain from ${d.resolve("plain.tsv")};\n"
        )
      )
      db <- TestPg.database("client_copy")
      settings = ApplySettings.default.withMaxChunk(4096).fold(e => fail(e.getMessage), identity)
      report <- apply(db, List(sqlAt(d, "load.sql")), settings)
      people <- scalar(
        db,
        "SELECT count(*) || ':' || sum(id) || ':' || max(length(name)) FROM people"
      )
      plain <- scalar(db, "SELECT count(*) || ':' || sum(id) FROM plain")
    yield
      assertEquals(report.outcome, ApplyReport.Outcome.Completed)
      assertEquals(report.files.map(f => (f.statements, f.copyRows)), List((4L, 5000L)))
      val bytes = List("load.sql", "péople.csv", "plain.tsv").map(n => Files.size(d.resolve(n))).sum
      assertEquals(report.files.map(_.bytes), List(bytes))
      assertEquals(people, Some(s"3000:${3000L * 3001 / 2}:36"))
      assertEquals(plain, Some(s"2000:${2000L * 2001 / 2}"))
  }

  test("a bad row names the data file's line; a missing file fails at the line; nothing applied") {
    val rows = (1 to 1500).map(i => s"$i\n").mkString + "x\n"
    for
      d <- dir("rows.tsv" -> rows)
      _ <- IO.blocking {
        Files.writeString(
          d.resolve("bad.sql"),
          s"CREATE TABLE cc1 (n int);\n\\copy cc1 from '${d.resolve("rows.tsv")}'\n"
        )
        Files.writeString(
          d.resolve("missing.sql"),
          "CREATE TABLE cc2 (n int);\n\\copy cc2 from 'no/such.tsv'\n"
        )
      }
      db <- TestPg.database("client_copy_bad")
      bad <- apply(db, List(sqlAt(d, "bad.sql")))
      missing <- apply(db, List(sqlAt(d, "missing.sql")))
      tables <- scalar(db, "SELECT count(*) FROM pg_class WHERE relname IN ('cc1', 'cc2')")
    yield
      failure(bad) match
        case e: ApplyError.StatementFailed =>
          assertEquals((e.at.file, e.at.line), (d.resolve("rows.tsv").toString, 1501L))
          assertEquals((e.statement.file, e.statement.line), ("bad.sql", 2L))
          assert(e.getMessage.contains("nothing of bad.sql was applied"), e.getMessage)
        case other => fail(s"expected a failed COPY, got $other")
      assertEquals(
        failure(missing).getMessage,
        "missing.sql:2:1: \\copy from no/such.tsv: no such file (\\copy reads it from the working directory)"
      )
      assertEquals(tables, Some("0"))
  }

  test("a migration with a \\copy is refused before anything is applied") {
    for
      d <- dir("rows.tsv" -> "1\n")
      _ <- IO.blocking {
        Files.createDirectories(d.resolve("m"))
        Files.writeString(d.resolve("m/0001_a.sql"), "CREATE TABLE cc3 (n int);\n")
        Files.writeString(
          d.resolve("m/0002_b.sql"),
          s"\\copy cc3 from '${d.resolve("rows.tsv")}'\n"
        )
      }
      db <- TestPg.database("client_copy_migration")
      result <- PgSession
        .open[IO](db)
        .use(s => Migrations.migrate[IO](s, Migrations.Source.Directory(d.resolve("m"))))
      table <- scalar(db, "SELECT to_regclass('cc3')::text")
    yield
      assert(
        result.left.exists(_.getMessage.startsWith("0002_b.sql:1:1: \\copy from ")),
        result.toString
      )
      assertEquals(table, None)
  }
