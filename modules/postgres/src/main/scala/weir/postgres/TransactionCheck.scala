package weir.postgres

import cats.effect.Async
import cats.syntax.all.*

/** Finds, before anything is applied, a statement that PostgreSQL refuses inside a transaction
  * block (SQLSTATE 25001) in a migration that runs in one: `VACUUM`, `CREATE`/`DROP DATABASE`,
  * `CREATE`/`DROP TABLESPACE`, `ALTER SYSTEM`, `CREATE [UNIQUE] INDEX CONCURRENTLY`, `DROP INDEX
  * CONCURRENTLY`, `REINDEX ... CONCURRENTLY`, `REINDEX DATABASE`/`SYSTEM`. It looks at how
  * statements start only: what it misses (`ALTER TYPE ... ADD VALUE` before PostgreSQL 12, a
  * function that runs `VACUUM`) fails on the server, its file rolled back.
  */
object TransactionCheck:

  private val refused = List(
    "^VACUUM\\b",
    "^(CREATE|DROP) DATABASE\\b",
    "^(CREATE|DROP) TABLESPACE\\b",
    "^ALTER SYSTEM\\b",
    "^CREATE (UNIQUE )?INDEX CONCURRENTLY\\b",
    "^DROP INDEX CONCURRENTLY\\b",
    "^REINDEX\\b.*\\bCONCURRENTLY\\b",
    "^REINDEX (\\([^)]*\\) )?(DATABASE|SYSTEM)\\b"
  ).map(_.r)

  /** True when `sql` (a statement as [[SqlSplitter]] cuts it: no leading comments) is one that
    * cannot run inside a transaction block.
    */
  def refusedInTransaction(sql: String): Boolean =
    val words = sql.trim.replaceAll("\\s+", " ").toUpperCase(java.util.Locale.ROOT)
    refused.exists(_.findFirstIn(words).isDefined)

  /** The first such statement of migration `file` when it runs in a transaction, as an
    * [[ApplyError.NeedsNoTransaction]], or its first psql include or `\copy` from a file (a
    * migration's checksum would not cover that file), as [[ApplyError.BadMigrations]]; `None`
    * otherwise. Reads the file once, streaming; a file the splitter refuses is left for the apply
    * to report (`None`).
    */
  def check[F[_]: Async](file: SqlFile): F[Option[ApplyError]] =
    file
      .pieces[F]
      .collectFirst {
        case SqlPiece.Statement(sql, at, _, _, _, _, _)
            if file.transactional && refusedInTransaction(sql) =>
          ApplyError.NeedsNoTransaction(at, sql.linesIterator.nextOption().getOrElse("").take(80))
        case SqlPiece.Include(path, _, at, _) =>
          ApplyError.BadMigrations(
            s"${at.show}: \\i $path in a migration: its checksum would not cover what the included file holds, so a change there would go unseen; put the statements in the migration (or in a migration of their own)"
          )
        case SqlPiece.Connect(database, at, _) =>
          ApplyError.BadMigrations(
            s"${at.show}: \\connect $database in a migration: a migration applies to the database that records it; nothing was applied"
          )
        case SqlPiece.ClientCopy(_, path, at, _) =>
          ApplyError.BadMigrations(
            s"${at.show}: \\copy from $path in a migration: its checksum would not cover the file's rows, so a change there would go unseen; put the rows in the migration (COPY ... FROM STDIN; and the rows after it)"
          )
      }
      .compile
      .last
      // Left for the apply to report: what the splitter refuses, and a fatal error (out of
      // memory: the apply meets it again, and rolls its file back).
      .handleError(_ => None)
      .map(_.map(e => e: ApplyError))
