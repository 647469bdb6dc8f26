package weir.postgres

/** What a migration file's name says about it. Flyway's names (`V<version>__<description>.sql`,
  * `R__<description>.sql`, `U<version>__<description>.sql`) or weir's own (any other `*.sql`,
  * applied in name order).
  */
enum MigrationName:

  /** `V<version>__<description>.sql`: applied once, in version order. */
  case Versioned(version: MigrationVersion, description: String)

  /** `R__<description>.sql`: applied after the versioned ones, and again whenever it changes. */
  case Repeatable(description: String)

  /** `U<version>__<description>.sql`: Flyway's undo migration, which weir ignores (with a warning),
    * as Flyway's community edition does not run them either.
    */
  case Undo(version: MigrationVersion, description: String)

  /** Any other `*.sql` name: weir's own style, applied once, in name order. */
  case Plain

  /** `beforeMigrate.sql`, `afterMigrate__<description>.sql`...: a Flyway SQL callback in a
    * directory of Flyway's names (see [[MigrationSet]]), run at its event, never recorded.
    */
  case Callback(event: String, description: String)

  /** True for Flyway's names (versioned, repeatable, undo, callback). */
  def flyway: Boolean = this != Plain

object MigrationName:

  private val separator = "__"

  /** What `file` (a name ending in `.sql`) is: a name that starts with `V`, `R` or `U` and has a
    * `__` is Flyway's, and must then be well formed (`Left` says what is wrong and how to write
    * it); any other name is [[Plain]]. The description is the text after `__` with `_` read as a
    * space, as Flyway records it.
    */
  def parse(file: String): Either[String, MigrationName] =
    val base = file.stripSuffix(".sql")
    val cut = base.indexOf(separator)
    if cut < 1 || !"VRU".contains(base.head) then Right(Plain)
    else
      val prefix = base.substring(1, cut)
      val description = base.substring(cut + separator.length).replace('_', ' ')
      base.head match
        case 'R' =>
          if prefix.isEmpty then Right(Repeatable(description))
          else
            Left(
              s"$file: a repeatable migration has no version: write R__${base.substring(cut + 2)}.sql"
            )
        case 'V' =>
          MigrationVersion.parse(prefix).map(Versioned(_, description)).left.map(e => s"$file: $e")
        case _ =>
          MigrationVersion.parse(prefix).map(Undo(_, description)).left.map(e => s"$file: $e")
