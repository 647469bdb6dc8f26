package weir.postgres.queue

import weir.ConfigError

/** The PostgreSQL schema a queue lives in: its tables, its functions (`enqueue`, ...), the record
  * of its migrations (`<schema>.migrations`) and its notification channel (`<schema>_jobs`).
  * Default `weir`. Two queues in two schemas of one database share nothing: a worker of one never
  * claims, wakes for or sweeps the other's jobs.
  *
  * A plain lowercase SQL identifier, so that it is written into SQL as it is, unquoted: a letter or
  * `_`, then letters, digits or `_`; at most 58 characters (the channel, `<schema>_jobs`, must fit
  * PostgreSQL's 63); not a keyword PostgreSQL reserves (`select`, `user`, `table`...) and not
  * starting with `pg_` (reserved for the system's schemas).
  */
opaque type QueueSchemaName = String

object QueueSchemaName:

  /** `weir`: where the queue has always been. */
  val default: QueueSchemaName = "weir"

  /** The longest name accepted (the channel name `<schema>_jobs` is then 63 characters). */
  val maxLength: Int = 58

  /** `name` as a schema name; `Left` naming what is wrong with it (see [[QueueSchemaName]]). */
  def from(name: String): Either[ConfigError, QueueSchemaName] =
    def invalid(why: String) = Left(ConfigError.Invalid("queue schema", s"'$name' $why"))
    if name.isEmpty then Left(ConfigError.Invalid("queue schema", "must not be empty"))
    else if !name.matches("[a-z_][a-z0-9_]*") then
      invalid(
        "is not a plain lowercase SQL identifier: use a-z, 0-9 and _, starting with a letter or _ (e.g. jobs, billing_queue)"
      )
    else if name.length > maxLength then invalid(s"is longer than $maxLength characters")
    else if name.startsWith("pg_") || name == "information_schema" then
      invalid("is reserved for PostgreSQL's own schemas: pick another name (e.g. jobs)")
    else if reserved.contains(name) then
      invalid("is a keyword PostgreSQL reserves: pick another name (e.g. jobs, billing_queue)")
    else Right(name)

  extension (schema: QueueSchemaName)

    /** The name, as written in SQL. */
    def name: String = schema

    /** The channel the queue's workers listen on; a notification's payload is a queue's name. */
    def channel: String = s"${schema}_jobs"

    /** `text` (a migration of the queue, written for the schema `weir`) for this schema: each
      * qualified name `weir.x` becomes `<schema>.x`, the channel `'weir_jobs'` `'<schema>_jobs'`
      * and the schema created `<schema>`. The text itself for `weir`: unchanged, so that the
      * checksums recorded for it stay what they have always been.
      */
    private[queue] def rewrite(text: String): String =
      if schema == default then text
      else
        text
          .replace("CREATE SCHEMA IF NOT EXISTS weir;", s"CREATE SCHEMA IF NOT EXISTS $schema;")
          .replace("'weir_jobs'", s"'$channel'")
          .replaceAll("\\bweir\\.", s"$schema.")

  // PostgreSQL's keywords other than the unreserved ones (pg_get_keywords() on PostgreSQL 15,
  // catcode <> 'U'): none of them can stand unquoted as a schema's name in every place.
  private val reserved: Set[String] =
    """all analyse analyze and any array as asc asymmetric authorization between bigint binary bit
      |boolean both case cast char character check coalesce collate collation column concurrently
      |constraint create cross current_catalog current_date current_role current_schema current_time
      |current_timestamp current_user dec decimal default deferrable desc distinct do else end except
      |exists extract false fetch float for foreign freeze from full grant greatest group grouping
      |having ilike in initially inner inout int integer intersect interval into is isnull join
      |lateral leading least left like limit localtime localtimestamp national natural nchar none
      |normalize not notnull null nullif numeric offset on only or order out outer overlaps overlay
      |placing position precision primary real references returning right row select session_user
      |setof similar smallint some substring symmetric table tablesample then time timestamp to
      |trailing treat trim true union unique user using values varchar variadic verbose when where
      |window with xmlattributes xmlconcat xmlelement xmlexists xmlforest xmlnamespaces xmlparse
      |xmlpi xmlroot xmlserialize xmltable""".stripMargin.split("\\s+").toSet
