package weir.postgres

import cats.effect.IO
import cats.syntax.all.*
import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.Files
import munit.CatsEffectSuite
import scala.concurrent.duration.*

/** Real Flyway (flyway-core 13.12.1) and weir on a real PostgreSQL ([[TestPg]]): the same directory
  * ends with the same schema either way; a database Flyway migrated is taken over without running
  * anything again; repeatables run again on change only; bad input is refused with nothing applied.
  */
class FlywaySuite extends CatsEffectSuite with TempPaths.Cleanup:
  import FlywayFixtures.*

  override def munitIOTimeout: Duration = 3.minutes

  // The schema of `public` as the catalog shows it, without Flyway's table.
  private def schema(db: PgTarget): IO[List[String]] =
    PgSession.open[IO](db).use { s =>
      List(
        "SELECT table_name || '.' || column_name || ' ' || data_type || ' ' || is_nullable || ' ' || coalesce(column_default, '') FROM information_schema.columns WHERE table_schema = 'public' AND table_name <> 'flyway_schema_history' ORDER BY 1",
        "SELECT indexname || ' ' || indexdef FROM pg_indexes WHERE schemaname = 'public' AND tablename <> 'flyway_schema_history' ORDER BY 1",
        "SELECT viewname || ' ' || definition FROM pg_views WHERE schemaname = 'public' ORDER BY 1",
        "SELECT conname || ' ' || pg_get_constraintdef(oid) FROM pg_constraint WHERE connamespace = 'public'::regnamespace AND conrelid <> coalesce(to_regclass('public.flyway_schema_history'), 0) ORDER BY 1"
      ).traverse(q => s.query(q).map(_.toList.flatMap(_.headOption.flatten)))
        .map(_.flatten)
    }

  private val base = List(
    "V1__create_items.sql" -> "CREATE TABLE items (id int PRIMARY KEY, name text NOT NULL);\nCREATE TABLE runs (what text);\n",
    "V1_1__item_price.sql" -> "ALTER TABLE items ADD COLUMN price numeric(10, 2) DEFAULT 0;\n",
    "V2__seed.sql" -> "INSERT INTO items VALUES (1, 'one', 1.5);\nINSERT INTO runs VALUES ('V2');\n",
    "V10__index.sql" -> "CREATE INDEX items_name ON items (name);\n",
    "R__views.sql" -> "\uFEFFCREATE OR REPLACE VIEW cheap AS SELECT * FROM items WHERE price < 10;\r\nINSERT INTO runs VALUES ('R');\r\n"
  )

  test(
    "a directory that Flyway migrates and the same directory that weir migrates: the same schema"
  ) {
    for
      d <- dir(base*)
      a <- TestPg.database("fw_same_flyway")
      b <- TestPg.database("fw_same_weir")
      _ <- IO.blocking(flyway(a, d).migrate())
      result <- weir(b, d)
      sa <- schema(a)
      sb <- schema(b)
      runsA <- scalar(a, "SELECT string_agg(what, ',' ORDER BY what) FROM runs")
      runsB <- scalar(b, "SELECT string_agg(what, ',' ORDER BY what) FROM runs")
    yield
      assertEquals(
        result.map(_.report.files.map(_.name)),
        Right(
          List(
            "V1__create_items.sql",
            "V1_1__item_price.sql",
            "V2__seed.sql",
            "V10__index.sql",
            "R__views.sql"
          )
        )
      )
      assert(sa.exists(_.startsWith("cheap ")), sa)
      assertEquals(sb, sa)
      assertEquals(runsB, runsA)
  }

  test(
    "a database Flyway migrated is taken over: nothing runs again; V4 and a changed R go on, once"
  ) {
    for
      d <- dir(base*)
      db <- TestPg.database("fw_takeover")
      _ <- IO.blocking(flyway(db, d).migrate())
      flywayR <- scalar(
        db,
        "SELECT checksum FROM flyway_schema_history WHERE script = 'R__views.sql'"
      )
      set <- Migrations.load[IO](d)
      first <- weir(db, d)
      runs1 <- scalar(db, "SELECT string_agg(what, ',' ORDER BY what) FROM runs")
      _ <- write(
        d,
        "V11__more.sql",
        "INSERT INTO items VALUES (2, 'two', 20);\nINSERT INTO runs VALUES ('V11');\n"
      )
      _ <- write(
        d,
        "R__views.sql",
        "CREATE OR REPLACE VIEW cheap AS SELECT * FROM items WHERE price < 5;\nINSERT INTO runs VALUES ('R');\n"
      )
      second <- weir(db, d)
      third <- weir(db, d)
      runs3 <- scalar(db, "SELECT string_agg(what, ',' ORDER BY what) FROM runs")
      flywayRows <- scalar(db, "SELECT count(*) FROM flyway_schema_history")
      weirRows <- scalar(
        db,
        "SELECT string_agg(name || ':' || kind || ':' || coalesce(version, '-'), ',' ORDER BY name) FROM weir.migrations"
      )
    yield
      // weir's CRC32 of the BOM + CRLF file is the one real Flyway recorded.
      val r = set.toOption.get.files.find(_.fileName == "R__views.sql").get
      assertEquals(flywayR, Some(r.checksums.flyway.toString))
      assertEquals(first.map(r => (r.report.files, r.alreadyApplied)), Right((Nil, 5)))
      assertEquals(runs1, Some("R,V2"))
      assertEquals(
        second.map(_.report.files.map(_.name)),
        Right(List("V11__more.sql", "R__views.sql"))
      )
      assertEquals(second.map(_.report.outcome), Right(ApplyReport.Outcome.Completed))
      assertEquals(third.map(r => (r.report.files, r.alreadyApplied)), Right((Nil, 6)))
      assertEquals(runs3, Some("R,R,V11,V2"))
      assertEquals(flywayRows, Some("5")) // Flyway's table is read, never written
      assertEquals(weirRows, Some("R__views.sql:repeatable:-,V11__more.sql:versioned:11"))
  }

  test(
    "Flyway's baseline and weir's: versions up to it never run; a failed Flyway row stops the run"
  ) {
    val files = List(
      "V1__a.sql" -> "CREATE TABLE a (x int);\n",
      "V2__b.sql" -> "CREATE TABLE b (x int);\n",
      "V3__c.sql" -> "CREATE TABLE c (x int);\n"
    )
    for
      d <- dir(files*)
      fw <- TestPg.database("fw_baseline")
      _ <- IO.blocking(flyway(fw, d, baseline = Some("2")).baseline())
      taken <- weir(fw, d)
      tablesFw <- scalar(
        fw,
        "SELECT string_agg(tablename, ',' ORDER BY tablename) FROM pg_tables WHERE schemaname = 'public' AND tablename <> 'flyway_schema_history'"
      )
      own <- TestPg.database("weir_baseline")
      settings = MigrationSettings.default.withBaseline(MigrationVersion.parse("2").toOption.get)
      based <- weir(own, d, settings)
      again <- weir(own, d, settings)
      other <- weir(
        own,
        d,
        MigrationSettings.default.withBaseline(MigrationVersion.parse("1").toOption.get)
      )
      tablesOwn <- scalar(
        own,
        "SELECT string_agg(tablename, ',' ORDER BY tablename) FROM pg_tables WHERE schemaname = 'public'"
      )
      failed <- TestPg.database("fw_failed")
      _ <- IO.blocking(flyway(failed, d).migrate())
      _ <- PgSession
        .open[IO](failed)
        .use(_.update("UPDATE flyway_schema_history SET success = false WHERE version = '3'"))
      _ <- write(d, "V4__d.sql", "CREATE TABLE d (x int);\n")
      refused <- weir(failed, d)
      dExists <- scalar(failed, "SELECT to_regclass('d') IS NOT NULL")
    yield
      assertEquals(taken.map(_.report.files.map(_.name)), Right(List("V3__c.sql")))
      assertEquals(tablesFw, Some("c"))
      assertEquals(based.map(_.report.files.map(_.name)), Right(List("V3__c.sql")))
      assertEquals(again.map(_.report.files), Right(Nil))
      assert(
        clue(other).left.exists(
          _.getMessage.contains("a baseline is for a database never migrated")
        )
      )
      assertEquals(tablesOwn, Some("c"))
      assert(
        clue(refused).left.exists(e =>
          e.isInstanceOf[ApplyError.FlywayFailed] && e.getMessage.contains("V3__c.sql")
        )
      )
      assertEquals(dExists, Some("f"))
  }

  // Tables in public and rows in weir's record: what a refused run must leave at zero.
  private def applied(db: PgTarget): IO[(Option[String], Option[String])] =
    for
      tables <- scalar(
        db,
        "SELECT count(*) FROM pg_tables WHERE schemaname = 'public' AND tablename <> 'flyway_schema_history'"
      )
      record <- scalar(db, "SELECT to_regclass('weir.migrations') IS NOT NULL")
      rows <-
        if record.contains("t") then scalar(db, "SELECT count(*) FROM weir.migrations")
        else IO.pure(Some("0"))
    yield (tables, rows)

  test("bad input: a clear Left and nothing applied") {
    val latin1 =
      "INSERT INTO t VALUES ('caf".getBytes(UTF_8) ++ Array(0xe9.toByte) ++ "');\n".getBytes(UTF_8)
    val cases: List[(String, List[(String, Either[String, Array[Byte]])], String)] = List(
      (
        "dup",
        List(
          "V1__a.sql" -> Left("CREATE TABLE t (x int);"),
          "V1.0__b.sql" -> Left("CREATE TABLE u (x int);")
        ),
        "V1.0__b.sql and V1__a.sql have one version"
      ),
      (
        "nan",
        List("V1__a.sql" -> Left("CREATE TABLE t (x int);"), "Vx__a.sql" -> Left("SELECT 1;")),
        "Vx__a.sql: the version 'x' is not a number"
      ),
      (
        "utf8",
        List("V1__a.sql" -> Left("CREATE TABLE t (x text);"), "V2__b.sql" -> Right(latin1)),
        "V2__b.sql: not valid UTF-8 at byte 26"
      ),
      (
        "callback",
        List(
          "V1__a.sql" -> Left("CREATE TABLE t (x int);"),
          "beforeClean__grants.sql" -> Left("GRANT SELECT ON t TO PUBLIC;")
        ),
        "beforeClean__grants.sql is a Flyway SQL callback run at beforeClean, and weir runs only the beforeValidate, afterValidate, beforeMigrate, beforeEachMigrate, afterEachMigrate, afterVersioned, beforeRepeatables, afterMigrateApplied, afterMigrate, afterMigrateError callbacks"
      ),
      (
        "eacherror",
        List(
          "V1__a.sql" -> Left("CREATE TABLE t (x int);"),
          "afterEachMigrateError.sql" -> Left("SELECT 1;")
        ),
        "afterEachMigrateError.sql is a Flyway SQL callback run at afterEachMigrateError, which Flyway runs inside the failed migration's transaction"
      ),
      (
        "conc",
        List(
          "V1__a.sql" -> Left("CREATE TABLE t (x int);"),
          "V2__b.sql" -> Left("-- an index\nCREATE INDEX CONCURRENTLY t_x ON t (x);")
        ),
        "V2__b.sql:2:1: CREATE INDEX CONCURRENTLY t_x ON t (x): this statement cannot run inside a transaction block"
      ),
      (
        "vacuum",
        List(
          "V1__a.sql" -> Left("CREATE TABLE t (x int);"),
          "V2__b.sql" -> Left("INSERT INTO t VALUES (1);\nVACUUM t;")
        ),
        "make '-- weir: no-transaction' the migration's first line"
      )
    )
    cases.traverse { (label, files, expected) =>
      for
        d <- IO.blocking(tempPaths.directory("weir-flyway-bad-"))
        _ <- files.traverse { (n, content) =>
          IO.blocking(Files.write(d.resolve(n), content.fold(_.getBytes(UTF_8), identity)))
        }
        db <- TestPg.database(s"fw_bad_$label")
        result <- weir(db, d)
        left <- applied(db)
      yield
        assert(clue(result).left.exists(_.getMessage.contains(expected)), s"$label: $result")
        assertEquals(left, (Some("0"), Some("0")), label)
    }
  }

  test("a changed versioned file is refused with both checksums, whoever applied it") {
    for
      d <- dir("V1__a.sql" -> "CREATE TABLE t (x int);\n")
      fw <- TestPg.database("fw_changed_flyway")
      _ <- IO.blocking(flyway(fw, d).migrate())
      own <- TestPg.database("fw_changed_weir")
      _ <- weir(own, d)
      _ <- write(d, "V1__a.sql", "CREATE TABLE t (x bigint);\n")
      _ <- write(d, "V2__b.sql", "CREATE TABLE u (x int);\n")
      byFlyway <- weir(fw, d)
      byWeir <- weir(own, d)
      uFw <- scalar(fw, "SELECT to_regclass('u') IS NOT NULL")
      uOwn <- scalar(own, "SELECT to_regclass('u') IS NOT NULL")
    yield
      byFlyway match
        case Left(ApplyError.FlywayChecksumChanged("V1__a.sql", recorded, now)) =>
          assertNotEquals(recorded, now)
        case other => fail(s"expected Flyway's checksum changed: $other")
      byWeir match
        case Left(ApplyError.ChecksumChanged("V1__a.sql", recorded, now)) =>
          assertNotEquals(recorded, now)
        case other => fail(s"expected weir's checksum changed: $other")
      assertEquals((uFw, uOwn), (Some("f"), Some("f")))
  }

  test("Flyway-style names on the class path, as from a directory") {
    val source =
      Migrations.Source.Classpath(
        "weir/flywaytest",
        List("R__view.sql", "V1_1__b.sql", "V1__a.sql")
      )
    for
      db <- TestPg.database("fw_classpath")
      result <- PgSession.open[IO](db).use(Migrations.migrate[IO](_, source))
      again <- PgSession.open[IO](db).use(Migrations.migrate[IO](_, source))
    yield
      assertEquals(
        result.map(_.report.files.map(_.name)),
        Right(List("V1__a.sql", "V1_1__b.sql", "R__view.sql"))
      )
      assertEquals(again.map(r => (r.report.files, r.alreadyApplied)), Right((Nil, 3)))
  }

  test(
    "subdirectories are read as Flyway reads them: named by their path, taken over, refused when they clash"
  ) {
    val nested = List(
      "V1__one.sql" -> "CREATE TABLE s1 (x int);\n",
      "a/V2__two.sql" -> "CREATE TABLE s2 (x int);\n",
      "b/c/V3__three.sql" -> "CREATE TABLE s3 (x int);\n",
      "b/R__view.sql" -> "CREATE OR REPLACE VIEW s AS SELECT * FROM s1;\n"
    )
    def nestedDir(files: List[(String, String)]) = dir().flatTap(d =>
      IO.blocking(files.foreach { (n, text) =>
        Files.createDirectories(d.resolve(n).getParent)
        Files.writeString(d.resolve(n), text)
      })
    )
    for
      d <- nestedDir(nested)
      fw <- TestPg.database("fw_nested_flyway")
      own <- TestPg.database("fw_nested_weir")
      _ <- IO.blocking(flyway(fw, d).migrate())
      takenOver <- weir(fw, d)
      fresh <- weir(own, d)
      _ <- IO.blocking {
        Files.writeString(d.resolve("b/V4__four.sql"), "CREATE TABLE s4 (x int);\n")
      }
      more <- weir(fw, d)
      dup <- nestedDir(nested :+ ("b/V2__again.sql" -> "SELECT 1;\n"))
      dupRefused <- weir(own, dup)
      desc <- nestedDir(nested :+ ("a/R__view.sql" -> "SELECT 1;\n"))
      descRefused <- weir(own, desc)
    yield
      assertEquals(takenOver.map(_.report.files), Right(Nil))
      assertEquals(
        fresh.map(_.report.files.map(_.name)),
        Right(List("V1__one.sql", "a/V2__two.sql", "b/c/V3__three.sql", "b/R__view.sql"))
      )
      assertEquals(more.map(_.report.files.map(_.name)), Right(List("b/V4__four.sql")))
      assert(
        clue(dupRefused).left
          .exists(_.getMessage.startsWith("a/V2__two.sql and b/V2__again.sql have one version")) ||
          dupRefused.left.exists(
            _.getMessage.startsWith("b/V2__again.sql and a/V2__two.sql have one version")
          )
      )
      assert(
        clue(descRefused).left.exists(
          _.getMessage.contains(
            "a/R__view.sql and b/R__view.sql are repeatable migrations with one description"
          )
        )
      )
  }
