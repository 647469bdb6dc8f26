package weir.cli.applysql

import cats.effect.IO
import com.monovore.decline.Command
import io.circe.parser.parse
import java.nio.file.{Files, Path}
import munit.CatsEffectSuite
import org.flywaydb.core.Flyway
import scala.concurrent.duration.*
import weir.cli.common.Args.Format
import weir.postgres.{PgSession, PgTarget, TempPaths, TestPg}

/** `weir apply-sql --migrations` on a database that real Flyway migrated: `--status` shows what
  * Flyway applied, what is pending and what is missing; `--dry-run` prints the statements it would
  * send and applies nothing; the run applies only what Flyway lacks; a statement that cannot run in
  * a transaction names the marker.
  */
class ApplySqlFlywaySuite extends CatsEffectSuite with TempPaths.Cleanup:

  override def munitIOTimeout: Duration = 3.minutes

  private def command = Command("apply-sql", "")(ApplySqlOptions.opts(Map.empty))

  private def run(target: PgTarget, args: String*): IO[(Int, ApplySqlReport)] =
    val withUrl = args.toList ++ List("--url", target.show.replace(":***@", "@"), "--no-live")
    val p = command.parse(withUrl).fold(h => fail(h.errors.mkString("; ")), identity)
    ApplySqlCommand.execute(p.copy(target = target)).map(r => (r.exitCode, r))

  private def dir(files: (String, String)*): Path =
    val d = tempPaths.directory("weir-cli-flyway-")
    files.foreach((name, text) => Files.writeString(d.resolve(name), text))
    d

  private def scalar(target: PgTarget, sql: String): IO[Option[String]] =
    PgSession.open[IO](target).use(_.query(sql)).map(_.headOption.flatMap(_.head))

  test("--status and --dry-run after Flyway, then the run applies only what Flyway lacks") {
    val d = dir(
      "V1__create.sql" -> "CREATE TABLE t (id int);\n",
      "V2__rows.sql" -> "INSERT INTO t VALUES (1);\n"
    )
    for
      db <- TestPg.database("cli_flyway")
      _ <- IO.blocking(
        Flyway
          .configure()
          .dataSource(db.jdbcUrl, db.user, db.password.orNull)
          .locations("filesystem:" + d)
          .load()
          .migrate()
      )
      _ <- IO.blocking(
        Files.writeString(
          d.resolve("V3__more.sql"),
          "INSERT INTO t VALUES (2);\nINSERT INTO t VALUES (3);\n"
        )
      )
      _ <- IO.blocking(
        Files.writeString(
          d.resolve("R__view.sql"),
          "CREATE OR REPLACE VIEW v AS SELECT * FROM t;\n"
        )
      )
      _ <- IO.blocking(Files.delete(d.resolve("V1__create.sql")))
      status <- run(db, "--migrations", d.toString, "--status")
      dry <- run(db, "--migrations", d.toString, "--dry-run")
      rowsBefore <- scalar(db, "SELECT count(*) FROM t")
      applied <- run(db, "--migrations", d.toString)
      rowsAfter <- scalar(db, "SELECT string_agg(id::text, ',' ORDER BY id) FROM t")
      after <- run(db, "--migrations", d.toString, "--status", "--format", "json")
    yield
      assertEquals(status._1, 0)
      val text = ApplySqlRender(Format.Text, status._2)
      assert(text.contains("1 applied, 2 pending, 1 missing"), text)
      assert(
        """2 +V2__rows\.sql +versioned +applied +\d{4}-\d\d-\d\d \d\d:\d\d:\d\d +flyway""".r
          .findFirstIn(text)
          .isDefined,
        text
      )
      assert("""3 +V3__more\.sql +versioned +pending +- +-""".r.findFirstIn(text).isDefined, text)
      assert("""1 +V1__create\.sql +versioned +missing""".r.findFirstIn(text).isDefined, text)
      assertEquals(dry._1, 0)
      val printed = ApplySqlRender(Format.Text, dry._2)
      assert(printed.contains("-- V3__more.sql (version 3): 2 statement(s)"), printed)
      assert(printed.contains("INSERT INTO t VALUES (2);\nINSERT INTO t VALUES (3);"), printed)
      assert(printed.contains("CREATE OR REPLACE VIEW v AS SELECT * FROM t;"), printed)
      assertEquals(rowsBefore, Some("1"))
      assertEquals(applied._1, 0)
      assertEquals(rowsAfter, Some("1,2,3"))
      val json = parse(ApplySqlRender(Format.Json, after._2)).toOption.get
      val states = json.hcursor
        .downField("migrations")
        .as[List[io.circe.Json]]
        .toOption
        .get
        .map(m =>
          (
            m.hcursor.get[String]("name").toOption.get,
            m.hcursor.get[String]("state").toOption.get,
            m.hcursor.get[String]("by").toOption.get
          )
        )
      assertEquals(
        states,
        List(
          ("V2__rows.sql", "applied", "flyway"),
          ("V3__more.sql", "applied", "weir"),
          ("R__view.sql", "applied", "weir"),
          ("V1__create.sql", "missing", "flyway")
        )
      )
  }

  test(
    "--baseline on a new database; a statement refused in a transaction names the marker (exit 2)"
  ) {
    val d = dir(
      "V1__old.sql" -> "CREATE TABLE old (id int);\n",
      "V2__new.sql" -> "CREATE TABLE new (id int);\n"
    )
    for
      db <- TestPg.database("cli_baseline")
      based <- run(db, "--migrations", d.toString, "--baseline", "1")
      tables <- scalar(
        db,
        "SELECT string_agg(tablename, ',' ORDER BY tablename) FROM pg_tables WHERE schemaname = 'public'"
      )
      _ <- IO.blocking(
        Files.writeString(
          d.resolve("V3__index.sql"),
          "CREATE INDEX CONCURRENTLY new_id ON new (id);\n"
        )
      )
      refused <- run(db, "--migrations", d.toString)
    yield
      assertEquals(based._1, 0)
      assertEquals(tables, Some("new"))
      assertEquals(refused._1, 2)
      refused._2 match
        case ApplySqlReport.Refused(e) =>
          assert(
            e.getMessage.contains("make '-- weir: no-transaction' the migration's first line"),
            e.getMessage
          )
        case other => fail(s"expected refused: $other")
  }

  test(
    "--placeholder: a missing value exits 2 naming it, --dry-run shows the replaced text, the run applies it"
  ) {
    val d = dir("V1__t.sql" -> "CREATE TABLE ${t} (by text DEFAULT '${flyway:filename}');\n")
    for
      db <- TestPg.database("cli_placeholder")
      missing <- run(db, "--migrations", d.toString)
      dry <- run(db, "--migrations", d.toString, "--dry-run", "--placeholder", "T=tee")
      done <- run(db, "--migrations", d.toString, "--placeholder", "T=tee")
      default <- scalar(
        db,
        "SELECT column_default FROM information_schema.columns WHERE table_name = 'tee'"
      )
    yield
      assertEquals(missing._1, 2)
      missing._2 match
        case ApplySqlReport.Refused(e) =>
          assert(
            e.getMessage.startsWith("V1__t.sql:1:14: no value for the placeholder ${t}"),
            e.getMessage
          )
        case other => fail(s"expected refused: $other")
      assertEquals(dry._1, 0)
      val printed = ApplySqlRender(Format.Text, dry._2)
      assert(printed.contains("CREATE TABLE tee (by text DEFAULT 'V1__t.sql')"), printed)
      assertEquals(done._1, 0)
      assertEquals(default, Some("'V1__t.sql'::text"))
  }

  test(
    "Flyway callbacks: --dry-run counts them apart and names those inside each migration; the run applies them there"
  ) {
    val d = dir(
      "V1__t.sql" -> "CREATE TABLE t (x int);\n",
      "beforeEachMigrate.sql" -> "CREATE TABLE IF NOT EXISTS seen (tx bigint DEFAULT txid_current());\n",
      "afterEachMigrate.sql" -> "INSERT INTO seen DEFAULT VALUES;\n",
      "afterMigrate.sql" -> "INSERT INTO seen VALUES (0);\n"
    )
    for
      db <- TestPg.database("cli_callbacks")
      dry <- run(db, "--migrations", d.toString, "--dry-run")
      done <- run(db, "--migrations", d.toString)
      seen <- scalar(db, "SELECT string_agg(tx::text, ',' ORDER BY tx) FROM seen")
      t <- scalar(db, "SELECT xmin::text FROM pg_class WHERE relname = 't'")
    yield
      assertEquals(dry._1, 0)
      val printed = ApplySqlRender(Format.Text, dry._2)
      assert(
        printed.startsWith(
          "weir apply-sql --dry-run: 0 migration(s) already applied on " +
            db.show + "; 1 to apply (and 1 Flyway callback(s)), nothing applied now"
        ),
        printed
      )
      assert(
        printed.contains(
          "-- V1__t.sql (version 1): 1 statement(s), 24 B, in a transaction, with beforeEachMigrate.sql, afterEachMigrate.sql inside it"
        ),
        printed
      )
      val json = parse(ApplySqlRender(Format.Json, dry._2)).toOption.get.hcursor
      assertEquals(
        json.downField("pending").downArray.get[List[String]]("callbacks_inside"),
        Right(List("beforeEachMigrate.sql", "afterEachMigrate.sql"))
      )
      assertEquals(done._1, 0)
      // afterEachMigrate's row in the migration's transaction (t's), afterMigrate's 0 apart.
      assertEquals(seen, t.map(tx => s"0,$tx"))
  }
