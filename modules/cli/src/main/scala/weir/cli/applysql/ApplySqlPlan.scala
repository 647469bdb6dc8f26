package weir.cli.applysql

import java.nio.file.Path
import weir.cli.common.Output
import weir.postgres.{ApplySettings, MigrationSettings, PgTarget}
import weir.runtime.RuntimePreset

/** What `weir apply-sql` will do, decided from its options before anything connects. `connections`
  * above 1 spreads each COPY body over that many connections (`--parallel-copy`), outside a
  * transaction. `askPassword` (psql's `-W`): the password is asked on the terminal before
  * connecting. `singleTransaction` (psql's `-1`): all the files in one transaction. `createSchema`:
  * made (if missing) before migrations are applied, as Flyway makes its default schema
  * (`--flyway-config`).
  */
final case class ApplySqlPlan(
    target: PgTarget,
    input: ApplySqlPlan.Input,
    settings: ApplySettings,
    connections: Int,
    runtime: RuntimePreset,
    output: Output,
    live: Boolean,
    askPassword: Boolean = false,
    quiet: Boolean = false,
    singleTransaction: Boolean = false,
    createSchema: Option[String] = None
)

object ApplySqlPlan:

  /** The path that stands for standard input among [[Input.Files]] (`weir apply-sql -`). */
  val StandardInput: Path = Path.of("-")

  /** What to apply. */
  enum Input:
    /** These files, in order, each in a transaction unless `--no-transaction`; [[StandardInput]] is
      * the process's standard input.
      */
    case Files(paths: List[Path])

    /** psql's `-c` texts, in order, each applied as a file named `<command>` (`<command 2>`...) in
      * a transaction, unless it is one statement that cannot run in one (psql runs a `-c` of one
      * statement alone).
      */
    case Commands(texts: List[String])

    /** The migrations in `dirs` (together, as Flyway's locations) not applied yet (or only what
      * `mode` says), as `settings` say.
      */
    case Migrations(dirs: List[Path], mode: MigrationMode, settings: MigrationSettings)

  /** What to do with a migrations directory. */
  enum MigrationMode:
    /** Apply what is pending. */
    case Apply

    /** Print the statements that would be sent, apply nothing (`--dry-run`). */
    case DryRun

    /** Print where each migration stands, apply nothing (`--status`). */
    case Status
