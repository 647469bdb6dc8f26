package weir.postgres

/** How [[Migrations.migrate]] keeps its record and reads Flyway's. Defaults: weir's record in
  * `weir.migrations`, Flyway's read from `flyway_schema_history` (through the `search_path`), no
  * baseline.
  *
  * @param history
  *   the schema of weir's record (`<history>.migrations`): a plain lowercase identifier, as the
  *   caller checked it
  * @param flywayTable
  *   Flyway's history table (`name` or `schema.name`), read when it exists, never written
  * @param baseline
  *   for a database never migrated: record that every version up to this one is applied, without
  *   running them (Flyway's `baseline`); refused on a database with migrations recorded (unless the
  *   same baseline is)
  */
final case class MigrationSettings(
    history: String,
    flywayTable: String,
    baseline: Option[MigrationVersion]
):
  def withHistory(schema: String): MigrationSettings = copy(history = schema)
  def withFlywayTable(table: String): MigrationSettings = copy(flywayTable = table)
  def withBaseline(version: MigrationVersion): MigrationSettings = copy(baseline = Some(version))

object MigrationSettings:
  val default: MigrationSettings =
    MigrationSettings(Migrations.defaultHistory, FlywayHistory.defaultTable, None)
