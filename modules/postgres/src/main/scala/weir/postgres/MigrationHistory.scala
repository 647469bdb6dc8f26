package weir.postgres

import cats.effect.Async
import cats.syntax.all.*

/** weir's record of applied migrations: the table `<schema>.migrations`, one row per migration file
  * (name, SHA-256, applied at, duration in ms, and since Flyway's names its kind — `plain`,
  * `versioned`, `repeatable` or `baseline` —, version and Flyway's checksum). A repeatable
  * migration keeps one row, updated each time it is applied again.
  *
  * Every call runs on the caller's session and raises the driver's errors.
  */
object MigrationHistory:

  /** A row of the record. `appliedAt` is `YYYY-MM-DD HH:MM:SS` in the session's time zone. */
  final case class Row(
      name: String,
      sha256: String,
      appliedAt: String,
      kind: String,
      version: Option[String],
      checksum: Option[Int]
  )

  /** The name of the row that [[baseline]] writes. */
  val baselineName: String = "<< weir baseline >>"

  /** The table's name in `schema`. */
  def table(schema: String): String = s"$schema.migrations"

  /** Creates the schema and table if needed, and adds the columns that later versions of weir
    * record to a table created by an earlier one (each `ADD COLUMN IF NOT EXISTS`: run it under the
    * migrations' lock, as [[Migrations.withLock]] does).
    */
  def prepare[F[_]: Async](session: PgSession[F], schema: String): F[Unit] =
    session.update(s"CREATE SCHEMA IF NOT EXISTS $schema") >>
      session.update(
        s"CREATE TABLE IF NOT EXISTS ${table(schema)} (name text PRIMARY KEY, sha256 text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now(), duration_ms bigint NOT NULL)"
      ) >>
      session.update(
        s"ALTER TABLE ${table(schema)} ADD COLUMN IF NOT EXISTS kind text NOT NULL DEFAULT 'plain', ADD COLUMN IF NOT EXISTS version text, ADD COLUMN IF NOT EXISTS checksum integer"
      )

  /** The rows, in name order; none when the table does not exist. Reads without writing, and reads
    * a table that an earlier weir created (without the newer columns) too.
    */
  def read[F[_]: Async](session: PgSession[F], schema: String): F[List[Row]] =
    session.query("SELECT to_regclass(?) IS NOT NULL", table(schema)).flatMap { rows =>
      if !rows.headOption.flatMap(_.headOption).flatten.contains("t") then Async[F].pure(Nil)
      else
        session
          .query(
            s"SELECT name, sha256, to_char(applied_at, 'YYYY-MM-DD HH24:MI:SS'), coalesce(to_jsonb(m)->>'kind', 'plain'), to_jsonb(m)->>'version', to_jsonb(m)->>'checksum' FROM ${table(schema)} m ORDER BY name"
          )
          .map(_.toList.map { r =>
            Row(
              r(0).getOrElse(""),
              r(1).getOrElse(""),
              r(2).getOrElse(""),
              r(3).getOrElse("plain"),
              r(4),
              r(5).flatMap(_.toIntOption)
            )
          })
    }

  /** Records `file` as applied (inside its transaction, if it has one); a repeatable migration's
    * row is replaced.
    */
  def record[F[_]](
      session: PgSession[F],
      file: MigrationFile,
      sha256: String,
      millis: Long,
      schema: String
  ): F[Unit] =
    session.update(
      s"INSERT INTO ${table(schema)} AS m (name, sha256, duration_ms, kind, version, checksum) VALUES (?, ?, ?::bigint, ?, ?, ?::integer) ON CONFLICT (name) DO UPDATE SET sha256 = excluded.sha256, applied_at = now(), duration_ms = excluded.duration_ms, kind = excluded.kind, version = excluded.version, checksum = excluded.checksum",
      file.fileName,
      sha256,
      millis.toString,
      file.kind,
      file.version.map(_.toString).orNull,
      file.checksums.flyway.toString
    )

  /** Records that every version up to `version` is applied, without running anything. */
  def baseline[F[_]](session: PgSession[F], version: MigrationVersion, schema: String): F[Unit] =
    session.update(
      s"INSERT INTO ${table(schema)} (name, sha256, duration_ms, kind, version) VALUES (?, '', 0, 'baseline', ?)",
      baselineName,
      version.toString
    )
