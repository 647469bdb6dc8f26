package weir.postgres

import cats.effect.IO
import java.nio.file.{Files, Path}
import org.flywaydb.core.Flyway
import org.flywaydb.core.api.configuration.FluentConfiguration

/** What the Flyway suites share: migration directories written by the test, real Flyway and weir
  * run on one of [[TestPg]]'s databases, a scalar read back.
  */
object FlywayFixtures:

  /** A directory of `files` (name -> text), deleted with `temp`. */
  def dir(files: (String, String)*)(using temp: TempPaths): IO[Path] = IO.blocking {
    val d = temp.directory("weir-flyway-")
    files.foreach((n, text) => Files.writeString(d.resolve(n), text))
    d
  }

  def write(d: Path, name: String, text: String): IO[Unit] =
    IO.blocking(Files.writeString(d.resolve(name), text)).void

  /** Flyway on `db` for the migrations in `d`, configured further by `more`. */
  def flyway(
      db: PgTarget,
      d: Path,
      baseline: Option[String] = None,
      more: FluentConfiguration => FluentConfiguration = identity
  ): Flyway =
    val c = Flyway
      .configure()
      .dataSource(db.jdbcUrl, db.user, db.password.orNull)
      .locations("filesystem:" + d.toString)
    more(baseline.fold(c)(v => c.baselineVersion(v))).load()

  def weir(db: PgTarget, d: Path, settings: MigrationSettings = MigrationSettings.default) =
    PgSession
      .open[IO](db)
      .use(s =>
        Migrations.migrate[IO](s, Migrations.Source.Directory(d), settings, IO.unit, IO.never)
      )

  def scalar(db: PgTarget, sql: String): IO[Option[String]] =
    PgSession.open[IO](db).use(_.query(sql).map(_.headOption.flatMap(_.headOption).flatten))
