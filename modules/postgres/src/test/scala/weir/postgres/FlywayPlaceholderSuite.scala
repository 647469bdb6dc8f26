package weir.postgres

import cats.effect.IO
import munit.CatsEffectSuite
import scala.concurrent.duration.*
import scala.jdk.CollectionConverters.*

/** Flyway's placeholders, replaced by real Flyway (flyway-core 13.12.1) and by weir on a real
  * PostgreSQL ([[TestPg]]): the same rows either way, the caller's and the built-in ones, in
  * statements, comments and COPY bodies; a database Flyway migrated with them is taken over; a
  * placeholder with no value is refused before anything is applied.
  */
class FlywayPlaceholderSuite extends CatsEffectSuite with TempPaths.Cleanup:
  import FlywayFixtures.*

  override def munitIOTimeout: Duration = 3.minutes

  private val files = List(
    "V1__schema.sql" -> "-- for ${Table_Name}\nCREATE TABLE ${table_name} (id int, who text, facts text);\n",
    "V2__rows.sql" -> ("COPY ${table_name} (id, who) FROM stdin;\n1\t${owner}\n\\.\n" +
      "INSERT INTO ${table_name} VALUES (2, '${flyway:user}' = current_user, concat_ws('|', " +
      "'${flyway:database}' = current_database(), '${flyway:defaultSchema}', '${flyway:filename}', " +
      "'${flyway:table}', '${flyway:environment}', '${flyway:timestamp}' <> '', '$${kept}', '${empty}'));\n"),
    "R__view.sql" -> "CREATE OR REPLACE VIEW ${table_name}_ids AS SELECT id FROM ${table_name};\n"
  )

  private val values = Map("table_name" -> "things", "owner" -> "ann", "empty" -> "")

  private val rows =
    "SELECT string_agg(concat_ws(' ', id, who, facts), '; ' ORDER BY id) FROM things"

  test(
    "a directory with placeholders: Flyway and weir give the same rows; Flyway's is taken over"
  ) {
    for
      d <- dir(files*)
      a <- TestPg.database("fw_ph_flyway")
      b <- TestPg.database("fw_ph_weir")
      _ <- IO.blocking(flyway(a, d, more = _.placeholders(values.asJava)).migrate())
      // The names in another case: Flyway matches them without regard to case, and so does weir.
      settings = MigrationSettings.default
        .withPlaceholder("TABLE_NAME", "things")
        .withPlaceholder("Owner", "ann")
        .withPlaceholder("empty", "")
      result <- weir(b, d, settings)
      rowsA <- scalar(a, rows)
      rowsB <- scalar(b, rows)
      viewB <- scalar(b, "SELECT count(*) FROM things_ids")
      takenOver <- weir(a, d, settings)
    yield
      assertEquals(result.map(_.report.files.map(_.name)), Right(files.map(_._1)))
      assertEquals(
        rowsA,
        Some(
          "1 ann; 2 true t|public|V2__rows.sql|flyway_schema_history|default|t|$${kept}|"
        )
      )
      assertEquals(rowsB, rowsA)
      assertEquals(viewB, Some("2"))
      assertEquals(takenOver.map(_.report.files), Right(Nil))
  }

  test("a placeholder with no value: refused at its line and column, nothing of any file applied") {
    for
      d <- dir(files*)
      db <- TestPg.database("fw_ph_unknown")
      // V1 alone has all it needs; V2 lacks ${owner}: V1 must not run either.
      refused <- weir(db, d, MigrationSettings.default.withPlaceholder("table_name", "things"))
      table <- scalar(db, "SELECT to_regclass('things') IS NOT NULL")
      record <- scalar(db, "SELECT count(*) FROM weir.migrations")
    yield
      assertEquals(
        refused.left.map(_.getMessage.takeWhile(_ != ':')),
        Left("V2__rows.sql")
      )
      assert(
        clue(refused).left.exists(
          _.getMessage.startsWith("V2__rows.sql:2:3: no value for the placeholder ${owner}")
        )
      )
      assert(clue(refused).left.exists(_.getMessage.endsWith("nothing was applied")))
      assertEquals(table, Some("f"))
      assertEquals(record, Some("0"))
  }

  test("replacement off: the text is sent as it is, as Flyway's placeholderReplacement=false") {
    val text = "V1__literal.sql" -> "CREATE TABLE lit (v text DEFAULT '${not_a_placeholder}');\n"
    for
      d <- dir(text)
      a <- TestPg.database("fw_ph_off_flyway")
      b <- TestPg.database("fw_ph_off_weir")
      _ <- IO.blocking(flyway(a, d, more = _.placeholderReplacement(false)).migrate())
      result <- weir(b, d, MigrationSettings.default.withoutPlaceholderReplacement)
      defaults = "SELECT column_default FROM information_schema.columns WHERE table_name = 'lit'"
      va <- scalar(a, defaults)
      vb <- scalar(b, defaults)
    yield
      assert(result.isRight, result)
      assertEquals(va, Some("'${not_a_placeholder}'::text"))
      assertEquals(vb, va)
  }

  test("weir's own names: ${...} is sent as it is, and placeholders given for them are refused") {
    for
      d <- dir("001_init.sql" -> "CREATE TABLE own (v text DEFAULT '${x}');\n")
      db <- TestPg.database("fw_ph_weir_names")
      refused <- weir(db, d, MigrationSettings.default.withPlaceholder("x", "1"))
      applied <- weir(db, d)
      v <- scalar(
        db,
        "SELECT column_default FROM information_schema.columns WHERE table_name = 'own'"
      )
    yield
      assert(
        clue(refused).left.exists(
          _.getMessage.contains("are replaced in a directory of Flyway's migration names")
        )
      )
      assertEquals(applied.map(_.report.files.map(_.name)), Right(List("001_init.sql")))
      assertEquals(v, Some("'${x}'::text"))
  }

  test(
    "a repeatable runs again when a value of its placeholders changes, as in Flyway; a versioned file does not"
  ) {
    val labelled = List(
      "V1__t.sql" -> "CREATE TABLE ${t} (v text);\n",
      "R__label.sql" -> "CREATE OR REPLACE VIEW label AS SELECT '${label}'::text AS label;\nINSERT INTO runs_of_r VALUES (1);\n",
      "V0_1__runs.sql" -> "CREATE TABLE runs_of_r (x int);\n"
    )
    def named(label: String) =
      MigrationSettings.default.withPlaceholder("t", "tee").withPlaceholder("label", label)
    for
      d <- dir(labelled*)
      db <- TestPg.database("fw_ph_repeatable")
      _ <- IO.blocking(
        flyway(db, d, more = _.placeholders(Map("t" -> "tee", "label" -> "one").asJava)).migrate()
      )
      same <- weir(db, d, named("one"))
      changed <- weir(db, d, named("two"))
      label <- scalar(db, "SELECT label FROM label")
      again <- weir(db, d, named("two"))
      back <- weir(db, d, named("one"))
      runs <- scalar(db, "SELECT count(*) FROM runs_of_r")
    yield
      assertEquals(same.map(_.report.files.map(_.name)), Right(Nil))
      assertEquals(changed.map(_.report.files.map(_.name)), Right(List("R__label.sql")))
      assertEquals(label, Some("two"))
      assertEquals(again.map(_.report.files.map(_.name)), Right(Nil))
      assertEquals(back.map(_.report.files.map(_.name)), Right(List("R__label.sql")))
      // Flyway's run, then weir's two: the versioned files never ran again.
      assertEquals(runs, Some("3"))
  }
