package weir.postgres

/** How [[Migrations.migrate]] keeps its record and reads Flyway's. Defaults: weir's record in
  * `weir.migrations`, Flyway's read from `flyway_schema_history` (through the `search_path`), no
  * baseline, Flyway's placeholders replaced in a directory of Flyway's names.
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
  * @param placeholders
  *   values of Flyway's placeholders (`${name}`, names matched without regard to case), for a
  *   directory of Flyway's names; Flyway's built-in ones (`${flyway:user}`...) are given by weir
  * @param replacePlaceholders
  *   in a directory of Flyway's names, replace placeholders as Flyway does (its default); a
  *   placeholder with no value then stops the run before anything is applied. Off: the files are
  *   sent as they are (Flyway's `placeholderReplacement=false`). Default on.
  */
final case class MigrationSettings(
    history: String,
    flywayTable: String,
    baseline: Option[MigrationVersion],
    placeholders: Map[String, String] = Map.empty,
    replacePlaceholders: Boolean = true
):
  def withHistory(schema: String): MigrationSettings = copy(history = schema)
  def withFlywayTable(table: String): MigrationSettings = copy(flywayTable = table)
  def withBaseline(version: MigrationVersion): MigrationSettings = copy(baseline = Some(version))

  /** `${name}` is replaced by `value` (added to the placeholders set before). */
  def withPlaceholder(name: String, value: String): MigrationSettings =
    copy(placeholders = placeholders + (name -> value))

  /** Files are sent as they are: no placeholder is replaced. */
  def withoutPlaceholderReplacement: MigrationSettings = copy(replacePlaceholders = false)

object MigrationSettings:
  val default: MigrationSettings =
    MigrationSettings(Migrations.defaultHistory, FlywayHistory.defaultTable, None)
