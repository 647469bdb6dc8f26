package weir.postgres

import cats.effect.IO
import java.nio.file.Path
import munit.CatsEffectSuite
import scala.concurrent.duration.*

/** Flyway's SQL callbacks, run by real Flyway (flyway-core 13.12.1) and by weir on one directory,
  * on a real PostgreSQL ([[TestPg]]): the same callbacks run, in the same order and in the same
  * transactions, over runs with migrations pending, none pending, a changed repeatable and a
  * failing migration.
  */
class FlywayCallbackSuite extends CatsEffectSuite with TempPaths.Cleanup:
  import FlywayFixtures.*

  override def munitIOTimeout: Duration = 3.minutes

  test(
    "Flyway's migrate callbacks run as Flyway runs them: before, after, after-applied, never recorded"
  ) {
    val log = "CREATE TABLE IF NOT EXISTS log (n serial, what text);\n"
    val files = List(
      "V1__t.sql" -> "CREATE TABLE t (x int);\n",
      "beforeMigrate.sql" -> (log + "INSERT INTO log (what) VALUES ('before');\n"),
      "afterMigrate.sql" -> (log + "INSERT INTO log (what) VALUES ('after ${flyway:filename}');\n"),
      "afterMigrate__b.sql" -> (log + "INSERT INTO log (what) VALUES ('after b');\n"),
      "afterMigrateApplied.sql" -> (log + "INSERT INTO log (what) VALUES ('applied');\n")
    )
    val logged = "SELECT string_agg(what, ',' ORDER BY n) FROM log"
    for
      d <- dir(files*)
      fw <- TestPg.database("fw_callbacks_flyway")
      own <- TestPg.database("fw_callbacks_weir")
      _ <- IO.blocking(flyway(fw, d).migrate())
      first <- weir(own, d)
      _ <- write(d, "V2__u.sql", "CREATE TABLE u (x int);\n")
      _ <- IO.blocking(flyway(fw, d).migrate())
      _ <- weir(own, d)
      _ <- IO.blocking(flyway(fw, d).migrate()) // nothing pending
      _ <- weir(own, d)
      logFw <- scalar(fw, logged)
      logOwn <- scalar(own, logged)
      recorded <- scalar(own, "SELECT string_agg(name, ',' ORDER BY name) FROM weir.migrations")
    yield
      assertEquals(
        first.map(_.report.files.map(_.name)),
        Right(
          List(
            "beforeMigrate.sql",
            "V1__t.sql",
            "afterMigrateApplied.sql",
            "afterMigrate.sql",
            "afterMigrate__b.sql"
          )
        )
      )
      assertEquals(logOwn, logFw)
      assertEquals(
        logOwn,
        Some(
          "before,applied,after afterMigrate.sql,after b,before,applied,after afterMigrate.sql,after b,before,after afterMigrate.sql,after b"
        )
      )
      assertEquals(recorded, Some("V1__t.sql,V2__u.sql"))
  }

  test(
    "validate, each-migration, versioned, repeatables and error callbacks: what Flyway runs, in its order and transactions"
  ) {
    val log = "CREATE SCHEMA IF NOT EXISTS cb;\n" +
      "CREATE TABLE IF NOT EXISTS cb.log (n serial, what text, tx bigint);\n"
    def logs(what: String) = s"INSERT INTO cb.log (what, tx) VALUES ('$what', txid_current());\n"
    val events = Migrations.callbackEvents
    val files = events.map(e => s"$e.sql" -> (log + logs(e))) ++ List(
      "V1__t.sql" -> ("CREATE TABLE t (x int);\n" + logs("V1")),
      "V2__u.sql" -> ("CREATE TABLE u (x int);\n" + logs("V2")),
      "R__v.sql" -> ("CREATE OR REPLACE VIEW v AS SELECT 1 AS one;\n" + logs("R"))
    )
    // The log: what ran, and in which transaction (numbered in the order they first appear).
    def shape(db: PgTarget): IO[List[String]] =
      PgSession.open[IO](db).use(_.query("SELECT what, tx FROM cb.log ORDER BY n")).map { rows =>
        val txs = rows.toList.map(_(1).getOrElse(""))
        val number = txs.distinct.zipWithIndex.toMap
        rows.toList.zip(txs).map((r, tx) => s"${r.head.getOrElse("")}@${number(tx)}")
      }
    def both(d: Path, fw: PgTarget, own: PgTarget) =
      IO.blocking(flyway(fw, d).migrate()).attempt >> weir(own, d)
    for
      d <- dir(files*)
      fw <- TestPg.database("fw_events_flyway")
      own <- TestPg.database("fw_events_weir")
      _ <- both(d, fw, own)
      _ <- both(d, fw, own) // nothing pending
      _ <- write(d, "R__v.sql", "CREATE OR REPLACE VIEW v AS SELECT 2 AS one;\n" + logs("R"))
      _ <- both(d, fw, own) // the repeatable alone
      _ <- write(d, "V3__bad.sql", logs("V3") + "SELECT nope;\n")
      failed <- both(d, fw, own)
      logFw <- shape(fw)
      logOwn <- shape(own)
      recorded <- scalar(own, "SELECT string_agg(name, ',' ORDER BY name) FROM weir.migrations")
    yield
      assertEquals(logOwn, logFw)
      val validated = List("beforeValidate", "afterValidate", "beforeMigrate")
      def own(whats: List[String]) = whats.map(_ + "@")
      // Each callback in a transaction of its own; the each-migration ones in the migration's.
      val expected = List(
        own(validated),
        List("beforeEachMigrate@", "V1@", "afterEachMigrate@"),
        List("beforeEachMigrate@", "V2@", "afterEachMigrate@"),
        own(List("afterVersioned", "beforeRepeatables")),
        List("beforeEachMigrate@", "R@", "afterEachMigrate@"),
        own(List("afterMigrateApplied", "afterMigrate")),
        own(validated ++ List("afterVersioned", "afterMigrate")),
        own(validated ++ List("afterVersioned", "beforeRepeatables")),
        List("beforeEachMigrate@", "R@", "afterEachMigrate@"),
        own(List("afterMigrateApplied", "afterMigrate")),
        own(validated ++ List("afterMigrateError"))
      )
      // The same names; transactions as grouped above, numbered in order.
      val numbered = expected
        .flatMap(group =>
          if group.exists(_.startsWith("V")) || group.contains("R@") then List(group)
          else group.map(List(_))
        )
        .zipWithIndex
        .flatMap((group, tx) => group.map(_ + tx))
      assertEquals(logOwn, numbered)
      assert(
        failed.exists(_.report.outcome match
          case ApplyReport.Outcome.Failed(e) => e.getMessage.contains("V3__bad.sql:2:8")
          case _                             => false
        ),
        failed.toString
      )
      assertEquals(failed.map(_.warnings), Right(Nil))
      assertEquals(recorded, Some("R__v.sql,V1__t.sql,V2__u.sql"))
  }

  test(
    "an afterMigrateError callback that fails too is a warning; the run reports its own failure"
  ) {
    val files = List(
      "V1__t.sql" -> "CREATE TABLE t (x int);\nSELECT nope;\n",
      "afterMigrateError.sql" -> "SELECT also_nope;\n"
    )
    for
      d <- dir(files*)
      db <- TestPg.database("fw_events_error")
      result <- weir(db, d)
    yield
      val r = result.fold(e => fail(e.getMessage), identity)
      assert(
        r.report.outcome match
          case ApplyReport.Outcome.Failed(e) => e.getMessage.contains("V1__t.sql:2:8")
          case _                             => false
        ,
        r.toString
      )
      assertEquals(r.warnings.size, 1)
      assert(
        r.warnings.head.startsWith(
          "the afterMigrateError callback failed too (afterMigrateError.sql): afterMigrateError.sql:1:8: ERROR 42703"
        ),
        r.warnings.head
      )
  }
