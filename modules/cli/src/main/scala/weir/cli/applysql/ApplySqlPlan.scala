package weir.cli.applysql

import java.nio.file.Path
import weir.cli.common.Output
import weir.postgres.{ApplySettings, PgTarget}
import weir.runtime.RuntimePreset

/** What `weir apply-sql` will do, decided from its options before anything connects. `connections`
  * above 1 spreads each COPY body over that many connections (`--parallel-copy`), outside a
  * transaction.
  */
final case class ApplySqlPlan(
    target: PgTarget,
    input: ApplySqlPlan.Input,
    settings: ApplySettings,
    connections: Int,
    runtime: RuntimePreset,
    output: Output,
    live: Boolean
)

object ApplySqlPlan:

  /** What to apply. */
  enum Input:
    /** These files, in order, each in a transaction unless `--no-transaction`. */
    case Files(paths: List[Path])

    /** The migrations in `dir` not applied yet; with `dryRun`, only list them. */
    case Migrations(dir: Path, dryRun: Boolean)
