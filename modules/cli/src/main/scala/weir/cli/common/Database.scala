package weir.cli.common

import cats.data.ValidatedNel
import cats.syntax.all.*
import com.monovore.decline.Opts
import weir.postgres.PgTarget

/** The database option of every command that talks to PostgreSQL. */
object Database:

  /** `--url URL`, else libpq's environment `env` as psql reads it; a bad URI is refused naming
    * `--url`, with any password in it redacted.
    */
  def target(env: Map[String, String]): Opts[PgTarget] =
    url.mapValidated(parse(_, env, "--url"))

  /** `--url URL`, as given. */
  val url: Opts[Option[String]] =
    Opts
      .option[String](
        "url",
        "The database: postgresql://user:password@host:port/database[?sslmode=require...]. Default: libpq's environment (PGHOST, PGPORT, PGUSER, PGPASSWORD, PGDATABASE; PGSSLMODE, PGSSLROOTCERT, PGSSLCERT, PGSSLKEY, PGCONNECT_TIMEOUT, PGOPTIONS), as psql reads it; else localhost:5432, your user name as user and database. A password given nowhere is read from ~/.pgpass (or PGPASSFILE). The password is never printed.",
        metavar = "URL"
      )
      .orNone

  /** The database `uri` names, with libpq's environment `env` for what it leaves out; refused
    * naming `option`, with any password redacted.
    */
  def parse(
      uri: Option[String],
      env: Map[String, String],
      option: String
  ): ValidatedNel[String, PgTarget] =
    PgTarget
      .parse(uri, env)
      .leftMap(e => s"$option: ${PgTarget.redact(e.getMessage)}")
      .toValidatedNel
