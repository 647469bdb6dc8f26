package weir.postgres

import cats.effect.IO
import java.nio.file.Files
import munit.CatsEffectSuite
import scala.concurrent.duration.*

/** [[Migrations.migrate]], the one call, against a real PostgreSQL ([[TestPg]]): its lock does not
  * outlive the call, files come from the class path as from a directory, and every failure is a
  * `Left`.
  */
class MigrationsSuite extends CatsEffectSuite with TempPaths.Cleanup:

  override def munitIOTimeout: Duration = 2.minutes

  // Advisory locks with weir's key held on the database (by any session).
  private def locksHeld(db: PgTarget): IO[Int] =
    PgSession.open[IO](db).use { s =>
      // A bigint key shows as its high half (classid) and low half (objid), objsubid 1.
      val high = Migrations.lockKey >>> 32
      val low = Migrations.lockKey & 0xffffffffL
      s.query(
        s"SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND classid = $high AND objid = $low AND objsubid = 1"
      ).map(_.head.head.get.toInt)
    }

  test("the lock is released when the call returns, while the session stays open") {
    for
      db <- TestPg.database("mig_lock")
      held <- PgSession.open[IO](db).use { s =>
        Migrations.migrate[IO](s, weir.postgres.queue.QueueSchema.source) >> locksHeld(db)
      }
    yield assertEquals(held, 0)
  }

  test("files on the class path are applied and recorded under their names, once") {
    val source = weir.postgres.queue.QueueSchema.source
    for
      db <- TestPg.database("mig_classpath")
      first <- PgSession.open[IO](db).use(Migrations.migrate[IO](_, source))
      again <- PgSession.open[IO](db).use(Migrations.migrate[IO](_, source))
      names <- PgSession
        .open[IO](db)
        .use(
          _.query("SELECT name FROM weir.migrations ORDER BY name").map(_.flatMap(_.head))
        )
    yield
      assertEquals(
        first.map(_.report.files.size),
        Right(weir.postgres.queue.QueueSchema.files.size)
      )
      assertEquals(again.map(r => (r.report.files.size, r.alreadyApplied)), Right((0, names.size)))
      assertEquals(names.toList, weir.postgres.queue.QueueSchema.files)
  }

  test("a failure in the bookkeeping is a Left, the lock released; a file not there is a Left") {
    for
      db <- TestPg.database("mig_left")
      dir <- IO.blocking(tempPaths.directory("weir-mig-"))
      _ <- IO.blocking(Files.writeString(dir.resolve("0001_a.sql"), "CREATE TABLE a (x int);"))
      // weir.migrations without the column the bookkeeping reads: its read fails on the server.
      broken <- PgSession.open[IO](db).use { s =>
        s.update("CREATE SCHEMA weir") >> s.update("CREATE TABLE weir.migrations (name text)") >>
          Migrations.migrate[IO](s, Migrations.Source.Directory(dir))
      }
      held <- locksHeld(db)
      missing <- PgSession
        .open[IO](db)
        .use(
          Migrations.migrate[IO](_, Migrations.Source.Classpath("weir/nowhere", List("0001.sql")))
        )
    yield
      assert(clue(broken).left.exists(_.isInstanceOf[ApplyError.BookkeepingFailed]))
      assert(clue(broken).left.exists(_.getMessage.contains("sha256")))
      assertEquals(held, 0)
      assert(clue(missing).left.exists(_.getMessage.contains("weir/nowhere/0001.sql is missing")))
  }

  test("several directories, as Flyway's locations: one order over all; a name in two refused") {
    def directory(files: (String, String)*) = IO.blocking {
      val d = tempPaths.directory("weir-mig-")
      files.foreach((name, text) => Files.writeString(d.resolve(name), text))
      d
    }
    for
      db <- TestPg.database("mig_dirs")
      common <- directory(
        "V1__t.sql" -> "CREATE TABLE t (n int);",
        "V3__three.sql" -> "INSERT INTO t VALUES (3);"
      )
      prod <- directory("V2__two.sql" -> "INSERT INTO t VALUES (2);")
      clash <- directory("V1__t.sql" -> "SELECT 1;")
      applied <- PgSession
        .open[IO](db)
        .use(Migrations.migrate[IO](_, Migrations.Source.Directories(List(common, prod))))
      order <- PgSession
        .open[IO](db)
        .use(_.query("SELECT string_agg(n::text, ',' ORDER BY ctid) FROM t"))
        .map(_.flatMap(_.head))
      refused <- PgSession
        .open[IO](db)
        .use(Migrations.migrate[IO](_, Migrations.Source.Directories(List(common, clash))))
      plainA <- directory("001_a.sql" -> "SELECT 1;")
      plainB <- directory("001_a.sql" -> "SELECT 2;")
      sameName <- PgSession
        .open[IO](db)
        .use(Migrations.migrate[IO](_, Migrations.Source.Directories(List(plainA, plainB))))
    yield
      assertEquals(
        applied.map(_.report.files.map(_.name)),
        Right(List("V1__t.sql", "V2__two.sql", "V3__three.sql"))
      )
      assertEquals(order.toList, List("2,3"))
      // One version in two directories: named by their paths, their names being alike.
      assert(clue(refused).left.exists(_.getMessage.contains(s"$clash/V1__t.sql")))
      assert(
        clue(sameName).left.exists(_.getMessage.contains("one name (001_a.sql) in two directories"))
      )
  }
