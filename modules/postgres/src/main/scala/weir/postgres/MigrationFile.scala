package weir.postgres

/** A migration file: the file to apply, what its name says ([[MigrationName]]) and its checksums.
  */
final case class MigrationFile(file: SqlFile, name: MigrationName, checksums: MigrationChecksums):

  /** The file's name (`V1__create_users.sql`). */
  def fileName: String = file.name

  /** Its version, for a versioned migration. */
  def version: Option[MigrationVersion] = name match
    case MigrationName.Versioned(v, _) => Some(v)
    case _                             => None

  /** What weir records as its kind: `versioned`, `repeatable` or `plain`. */
  def kind: String = name match
    case MigrationName.Versioned(_, _) => "versioned"
    case MigrationName.Repeatable(_)   => "repeatable"
    case MigrationName.Callback(_, _)  => "callback"
    case _                             => "plain"
