package weir.postgres

import java.nio.charset.StandardCharsets.UTF_8
import java.nio.file.Files
import munit.FunSuite

/** Flyway's names, versions and order, and the checks [[MigrationSet.load]] makes before anything
  * connects. No server.
  */
class FlywayNamesSuite extends FunSuite with TempPaths.Cleanup:

  private def v(text: String) = MigrationVersion.parse(text).toOption.get

  test("versions compare part by part as numbers; 1_1 is 1.1; 1.0 is 1") {
    val sorted = List("10", "2", "1.2", "1", "1.1", "1.10", "20240131120000").map(v).sorted
    assertEquals(
      sorted.map(_.toString),
      List("1", "1.1", "1.2", "1.10", "2", "10", "20240131120000")
    )
    assertEquals(v("1_1").toString, "1.1")
    assert(v("1_1").sameAs(v("1.1")))
    assert(v("1.0").sameAs(v("1")))
    assert(!v("1.1").sameAs(v("1")))
    assert(MigrationVersion.parse("x").isLeft)
    assert(MigrationVersion.parse("1..2").isLeft)
  }

  test("names: versioned, repeatable, undo, weir's own") {
    assertEquals(
      MigrationName.parse("V1_2__create_users.sql"),
      Right(MigrationName.Versioned(v("1.2"), "create users"))
    )
    assertEquals(MigrationName.parse("R__views.sql"), Right(MigrationName.Repeatable("views")))
    assertEquals(MigrationName.parse("U3__drop.sql"), Right(MigrationName.Undo(v("3"), "drop")))
    assertEquals(MigrationName.parse("0001_init.sql"), Right(MigrationName.Plain))
    assertEquals(MigrationName.parse("V2_users.sql"), Right(MigrationName.Plain))
    assert(clue(MigrationName.parse("Vx__a.sql")).left.exists(_.contains("'x' is not a number")))
    assert(MigrationName.parse("R1__a.sql").isLeft)
  }

  private def dir(files: (String, String)*) =
    val d = tempPaths.directory("weir-flyway-names-")
    files.foreach((n, text) => Files.writeString(d.resolve(n), text))
    d

  test("a Flyway directory applies in version order, then repeatables by description; U ignored") {
    val d = dir(
      "V10__ten.sql" -> "SELECT 10;",
      "V2__two.sql" -> "SELECT 2;",
      "V1_1__one_one.sql" -> "SELECT 11;",
      "V1__one.sql" -> "SELECT 1;",
      "R__b.sql" -> "SELECT 'b';",
      "R__a.sql" -> "SELECT 'a';",
      "U2__two.sql" -> "SELECT 'undo';"
    )
    val set = MigrationSet.load(d).toOption.get
    assertEquals(
      set.files.map(_.fileName),
      List(
        "V1__one.sql",
        "V1_1__one_one.sql",
        "V2__two.sql",
        "V10__ten.sql",
        "R__a.sql",
        "R__b.sql"
      )
    )
    assertEquals(set.ignored, List("U2__two.sql"))
  }

  test("two files with one version: both named") {
    val left = MigrationSet.load(dir("V1__a.sql" -> "SELECT 1;", "V1.0__b.sql" -> "SELECT 2;"))
    left match
      case Left(e: ApplyError.DuplicateVersion) =>
        assert(
          e.getMessage.contains("V1.0__b.sql") && e.getMessage.contains("V1__a.sql"),
          e.getMessage
        )
      case other => fail(s"expected a duplicate version: $other")
  }

  test("a version that is not a number, mixed names, a file not UTF-8: refused, naming the file") {
    val bad = MigrationSet.load(dir("Vx__a.sql" -> "SELECT 1;"))
    assert(
      clue(bad).left.exists(e =>
        e.isInstanceOf[ApplyError.BadMigrationName] && e.getMessage.contains("Vx__a.sql")
      )
    )
    val mixed = MigrationSet.load(dir("V1__a.sql" -> "SELECT 1;", "0002_b.sql" -> "SELECT 2;"))
    assert(clue(mixed).left.exists(_.getMessage.contains("0002_b.sql is not named as Flyway")))
    val d = dir("V1__a.sql" -> "SELECT 1;")
    Files.write(
      d.resolve("V2__latin1.sql"),
      "SELECT 'caf".getBytes(UTF_8) ++ Array(0xe9.toByte) ++ "';\n".getBytes(UTF_8)
    )
    MigrationSet.load(d) match
      case Left(ApplyError.NotUtf8(file, offset)) =>
        assertEquals((file, offset), ("V2__latin1.sql", 11L))
      case other => fail(s"expected not UTF-8: $other")
  }

  test("Flyway's checksum ignores line breaks and a byte order mark") {
    val d = dir(
      "V1__lf.sql" -> "SELECT 1;\nSELECT 2;\n",
      "V2__crlf.sql" -> "\uFEFFSELECT 1;\r\nSELECT 2;\r\n"
    )
    val set = MigrationSet.load(d).toOption.get
    val sums = set.files.map(_.checksums)
    assertEquals(sums(0).flyway, sums(1).flyway)
    assertNotEquals(sums(0).sha256, sums(1).sha256)
    val crc = new java.util.zip.CRC32
    crc.update("SELECT 1;SELECT 2;".getBytes(UTF_8))
    assertEquals(sums(0).flyway, crc.getValue.toInt)
  }

  test("statements that cannot run in a transaction are recognised by how they start") {
    List(
      "VACUUM t",
      "vacuum (analyze) t",
      "CREATE INDEX CONCURRENTLY i ON t (x)",
      "create unique index\n  concurrently i on t (x)",
      "DROP INDEX CONCURRENTLY i",
      "REINDEX TABLE CONCURRENTLY t",
      "CREATE DATABASE x",
      "ALTER SYSTEM SET work_mem = '8MB'"
    ).foreach(s => assert(TransactionCheck.refusedInTransaction(s), s))
    List("CREATE INDEX i ON t (x)", "CREATE TABLE vacuum_log (x int)", "SELECT 'VACUUM'")
      .foreach(s => assert(!TransactionCheck.refusedInTransaction(s), s))
  }
