package weir.cli.applysql

import cats.effect.IO
import com.monovore.decline.Command
import java.io.StringReader
import java.nio.file.{Files, Path}
import munit.CatsEffectSuite
import org.flywaydb.core.Flyway
import scala.concurrent.duration.*
import weir.postgres.{PgSession, PgTarget, TempPaths, TestPg}

/** `weir apply-sql --flyway-config flyway.conf` against real Flyway 13 given the same settings: the
  * database, the directory, the history table in its schema, the schema first in the search path,
  * the placeholders; a database Flyway migrated with that file is taken over; settings weir would
  * not follow as Flyway does are refused, naming them.
  */
class FlywayConfigSuite extends CatsEffectSuite with TempPaths.Cleanup:

  override def munitIOTimeout: Duration = 3.minutes

  private def plan(env: Map[String, String], args: String*) =
    Command("apply-sql", "")(ApplySqlOptions.opts(env)).parse(args.toList)

  private def dir(files: (String, String)*): Path =
    val d = tempPaths.directory("weir-flyway-conf-")
    files.foreach { (name, text) =>
      Files.createDirectories(d.resolve(name).getParent)
      Files.writeString(d.resolve(name), text)
    }
    d

  private def scalar(target: PgTarget, sql: String): IO[Option[String]] =
    PgSession.open[IO](target).use(_.query(sql)).map(_.headOption.flatMap(_.head))

  // The rows of app.items, `id who` each, in id order.
  private def items(db: PgTarget): IO[Option[String]] =
    scalar(db, "SELECT string_agg(id || ' ' || who, ',' ORDER BY id) FROM app.items")

  private val migrations = List(
    "sql/V1__items.sql" -> "CREATE TABLE items (id int PRIMARY KEY, who text);\n",
    "sql/V2__rows.sql" -> "INSERT INTO items VALUES (1, '${who}'), (2, '${who}');\n",
    "sql/R__names.sql" -> "CREATE OR REPLACE VIEW names AS SELECT who FROM items;\n"
  )

  // A flyway.conf for `db`, naming the directory `sql` under `d`.
  private def conf(d: Path, db: PgTarget, more: String = ""): Path =
    val text =
      s"""# as a Flyway project keeps it
         |flyway.url=${db.jdbcUrl}
         |flyway.user=${db.user}
         |flyway.locations=filesystem:${d.resolve("sql")}
         |flyway.defaultSchema=app
         |flyway.table=history
         |flyway.placeholders.who=configured
         |flyway.cleanDisabled=true
         |$more""".stripMargin
    Files.writeString(d.resolve("flyway.conf"), text)

  private def flyway(file: Path): IO[Unit] = IO.blocking {
    val properties = new java.util.Properties()
    properties.load(new StringReader(Files.readString(file)))
    Flyway.configure().configuration(properties).load().migrate(): Unit
  }

  private def weir(file: Path): IO[ApplySqlReport] =
    plan(Map.empty, "--flyway-config", file.toString, "--no-live").fold(
      h => IO.raiseError(new AssertionError(h.errors.mkString("; "))),
      ApplySqlCommand.execute
    )

  // What the schema app holds, Flyway's history table aside.
  private def schema(db: PgTarget): IO[Option[String]] =
    scalar(
      db,
      "SELECT string_agg(table_name || ':' || table_type, ',' ORDER BY table_name) FROM information_schema.tables WHERE table_schema = 'app' AND table_name <> 'history'"
    )

  test("the same file migrates the same database with Flyway and with weir") {
    for
      byFlyway <- TestPg.database("conf_flyway")
      byWeir <- TestPg.database("conf_weir")
      d = dir(migrations*)
      _ <- flyway(conf(d, byFlyway))
      report <- weir(conf(d, byWeir))
      flywaySchema <- schema(byFlyway)
      weirSchema <- schema(byWeir)
      rows <- items(byWeir)
      flywayRows <- items(byFlyway)
    yield
      assertEquals(report.exitCode, 0, report.toString)
      assertEquals(weirSchema, Some("items:BASE TABLE,names:VIEW"))
      assertEquals(weirSchema, flywaySchema)
      assertEquals(rows, Some("1 configured,2 configured"))
      assertEquals(rows, flywayRows)
  }

  test("two locations are taken together as Flyway takes them; one version in both is refused") {
    val more = List(
      "extra/V1_5__more.sql" -> "INSERT INTO items VALUES (3, 'extra');\n",
      "extra/V3__index.sql" -> "CREATE INDEX items_who ON items (who);\n"
    )
    val twice = "extra/V2__again.sql" -> "SELECT 1;\n"
    def twoLocations(d: Path, db: PgTarget): Path =
      val file = conf(d, db)
      val text = Files
        .readString(file)
        .replace(
          s"flyway.locations=filesystem:${d.resolve("sql")}",
          s"flyway.locations=filesystem:${d.resolve("sql")}, filesystem:${d.resolve("extra")}"
        )
      Files.writeString(file, text)
    for
      byFlyway <- TestPg.database("locations_flyway")
      byWeir <- TestPg.database("locations_weir")
      d = dir(migrations ++ more*)
      _ <- flyway(twoLocations(d, byFlyway))
      report <- weir(twoLocations(d, byWeir))
      flywayRows <- items(byFlyway)
      weirRows <- items(byWeir)
      indexes <- scalar(byWeir, "SELECT count(*) FROM pg_indexes WHERE indexname = 'items_who'")
      recorded <- scalar(
        byWeir,
        "SELECT string_agg(name, ',' ORDER BY applied_at, name) FROM weir.migrations"
      )
      clash = dir(migrations ++ List(twice)*)
      refused <- weir(twoLocations(clash, byWeir))
    yield
      assertEquals(report.exitCode, 0, report.toString)
      assertEquals(weirRows, Some("1 configured,2 configured,3 extra"))
      assertEquals(weirRows, flywayRows)
      assertEquals(indexes, Some("1"))
      assertEquals(
        recorded.map(_.split(",").toSet),
        Some(
          Set("V1__items.sql", "V1_5__more.sql", "V2__rows.sql", "V3__index.sql", "R__names.sql")
        )
      )
      assertEquals(refused.exitCode, 2, refused.toString)
      assert(refused.toString.contains("have one version (2)"), refused.toString)
  }

  // The same settings as `conf`, in Flyway 10's flyway.toml, as Redgate's tools write it.
  private def toml(d: Path, db: PgTarget): Path =
    val text =
      s"""databaseType = "PostgreSql"
         |id = "2f1c3a"
         |name = "shop"
         |
         |[flywayDesktop]
         |developmentEnvironment = "development"
         |
         |[environments.shop]
         |url = "${db.jdbcUrl}"
         |user = "$${env.WEIR_TEST_FLYWAY_USER}" # from the environment
         |schemas = [
         |  "app", # history and objects
         |]
         |
         |[flyway]
         |environment = "shop"
         |locations = ['filesystem:${d.resolve("sql")}']
         |table = "history"
         |cleanDisabled = true
         |placeholders = { who = "configured" }
         |""".stripMargin
    Files.writeString(d.resolve("flyway.toml"), text)

  test("flyway.toml: the same settings migrate the same database as Flyway given flyway.conf") {
    for
      byFlyway <- TestPg.database("toml_flyway")
      byWeir <- TestPg.database("toml_weir")
      d = dir(migrations*)
      _ <- flyway(conf(d, byFlyway))
      p = plan(
        Map("WEIR_TEST_FLYWAY_USER" -> byWeir.user),
        "--flyway-config",
        toml(d, byWeir).toString,
        "--no-live"
      ).fold(h => fail(h.errors.mkString("; ")), identity)
      report <- ApplySqlCommand.execute(p)
      flywaySchema <- schema(byFlyway)
      weirSchema <- schema(byWeir)
      rows <- items(byWeir)
      unset = plan(Map.empty, "--flyway-config", d.resolve("flyway.toml").toString)
    yield
      assertEquals(report.exitCode, 0, report.toString)
      assertEquals(weirSchema, Some("items:BASE TABLE,names:VIEW"))
      assertEquals(weirSchema, flywaySchema)
      assertEquals(rows, Some("1 configured,2 configured"))
      assert(
        unset.left.exists(
          _.errors.exists(
            _.contains(
              "user: ${env.WEIR_TEST_FLYWAY_USER}: the variable WEIR_TEST_FLYWAY_USER is not set"
            )
          )
        ),
        unset.toString
      )
  }

  test("a flyway.toml TOML cannot read is refused with its line") {
    val d = dir(migrations*)
    Files.writeString(
      d.resolve("bad.toml"),
      "[flyway]\nlocations = ['filesystem:sql'\ntable = \"x\"\n"
    )
    val errors = plan(Map.empty, "--flyway-config", d.resolve("bad.toml").toString)
      .fold(_.errors.mkString("; "), p => fail(s"expected a refusal, got $p"))
    assert(errors.startsWith(s"--flyway-config ${d.resolve("bad.toml")}: line 3: "), errors)
  }

  test("a database Flyway migrated with the file is taken over: only the new migration runs") {
    for
      db <- TestPg.database("conf_takeover")
      d = dir(migrations*)
      file = conf(d, db)
      _ <- flyway(file)
      _ <- IO.blocking(
        Files.writeString(d.resolve("sql/V3__more.sql"), "INSERT INTO items VALUES (3, 'weir');\n")
      )
      report <- weir(file)
      rows <- items(db)
      ran <- scalar(db, "SELECT string_agg(name, ',' ORDER BY name) FROM weir.migrations")
    yield
      assertEquals(report.exitCode, 0, report.toString)
      assertEquals(rows, Some("1 configured,2 configured,3 weir"))
      assertEquals(ran, Some("V3__more.sql"))
  }

  test("settings weir would not follow as Flyway does are refused, naming them") {
    val d = dir(migrations*)
    def refusal(more: String): String =
      Files.writeString(
        d.resolve("bad.conf"),
        s"flyway.locations=filesystem:${d.resolve("sql")}\n$more\n"
      )
      plan(Map.empty, "--flyway-config", d.resolve("bad.conf").toString).fold(
        _.errors.mkString("; "),
        p => fail(s"expected a refusal of '$more', got $p")
      )
    val cases = List(
      "flyway.sqlMigrationPrefix=M" -> "flyway.sqlMigrationPrefix=M: weir applies Flyway's directories as Flyway's defaults name",
      "flyway.outOfOrder=true" -> "flyway.outOfOrder=true",
      "flyway.locations=classpath:db/migration" -> "weir reads directories; give --migrations DIR",
      "flyway.locations=filesystem:a,s3:bucket/b" -> "s3:bucket/b: weir reads filesystem: locations",
      "flyway.callbacks=com.example.Audit" -> "flyway.callbacks: weir does not read this setting",
      "flyway.placeholderReplacement=maybe" -> "write true or false"
    )
    cases.foreach((more, expected) =>
      assert(refusal(more).contains(expected), s"$more: ${refusal(more)}")
    )
    // At Flyway's default, a setting is accepted; the file's values fill the plan.
    Files.writeString(
      d.resolve("ok.conf"),
      s"flyway.locations=filesystem:${d.resolve("sql")}\nflyway.outOfOrder=false\nflyway.url=jdbc:postgresql://db.example:6543/shop\nflyway.user=me\nflyway.baselineOnMigrate=true\nflyway.baselineVersion=2\nflyway.schemas=app,other\n"
    )
    val ok = plan(Map.empty, "--flyway-config", d.resolve("ok.conf").toString)
      .fold(h => fail(h.errors.mkString("; ")), identity)
    assertEquals(
      ok.target.show,
      "postgresql://me@db.example:6543/shop?options=-c search_path=app,public"
    )
    ok.input match
      case ApplySqlPlan.Input.Migrations(paths, _, settings) =>
        assertEquals(paths, List(d.resolve("sql")))
        assertEquals(settings.flywayTable, "app.flyway_schema_history")
        assertEquals(settings.baseline.map(_.text), Some("2"))
      case other => fail(s"expected migrations, got $other")
    // The command line wins over the file, and FLYWAY_URL over the file's url.
    val over = plan(
      Map("FLYWAY_URL" -> "jdbc:postgresql://env.example/envdb"),
      "--flyway-config",
      d.resolve("ok.conf").toString,
      "--flyway-table",
      "mine"
    ).fold(h => fail(h.errors.mkString("; ")), identity)
    assertEquals(
      over.target.show,
      "postgresql://me@env.example:5432/envdb?options=-c search_path=app,public"
    )
    over.input match
      case ApplySqlPlan.Input.Migrations(_, _, settings) =>
        assertEquals(settings.flywayTable, "mine")
      case other => fail(s"expected migrations, got $other")
  }
