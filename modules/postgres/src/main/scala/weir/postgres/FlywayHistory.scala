package weir.postgres

import cats.effect.Async
import cats.syntax.all.*

/** Flyway's record of what it applied (`flyway_schema_history`), read so that weir can take over a
  * database that Flyway migrated. weir reads it and never writes it (see [[Migrations]]).
  */
object FlywayHistory:

  /** Flyway's table name, looked up through the session's `search_path` (Flyway's default schema is
    * the connection's first).
    */
  val defaultTable: String = "flyway_schema_history"

  /** A row of Flyway's table. `version` is `None` for a repeatable migration; `kind` is Flyway's
    * `type` (`SQL`, `BASELINE`, `JDBC`, `UNDO_SQL`, `DELETE`...); `installedOn` is `YYYY-MM-DD
    * HH:MM:SS`.
    */
  final case class Row(
      rank: Int,
      version: Option[String],
      description: String,
      kind: String,
      script: String,
      checksum: Option[Int],
      installedOn: String,
      success: Boolean
  ):
    /** True for Flyway's baseline marker (`<< Flyway Baseline >>`). */
    def baseline: Boolean = kind == "BASELINE"

    /** True for rows that do not record an apply (undo, delete markers). */
    def notAnApply: Boolean = kind.startsWith("UNDO") || kind == "DELETE"

  /** The rows of `table` (a name or `schema.name`), in Flyway's order (`installed_rank`); none when
    * there is no such table. Reads only; driver errors are raised.
    */
  def read[F[_]: Async](session: PgSession[F], table: String): F[List[Row]] =
    session.query("SELECT to_regclass(?)::text", table).flatMap { rows =>
      rows.headOption.flatMap(_.headOption).flatten match
        case None => Async[F].pure(Nil)
        case Some(found) =>
          session
            .query(
              s"SELECT installed_rank, version, description, type, script, checksum, to_char(installed_on, 'YYYY-MM-DD HH24:MI:SS'), success FROM $found ORDER BY installed_rank"
            )
            .map(_.toList.map { r =>
              Row(
                r(0).flatMap(_.toIntOption).getOrElse(0),
                r(1),
                r(2).getOrElse(""),
                r(3).getOrElse(""),
                r(4).getOrElse(""),
                r(5).flatMap(_.toIntOption),
                r(6).getOrElse(""),
                r(7).contains("t")
              )
            })
    }
