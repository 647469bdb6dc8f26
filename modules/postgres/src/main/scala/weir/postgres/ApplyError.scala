package weir.postgres

/** Why applying SQL failed, each with a message that names where and what to do. Passwords never
  * appear in them: targets are shown by [[PgTarget.show]].
  */
sealed abstract class ApplyError(message: String, cause: Throwable | Null = null)
    extends Exception(message, cause)

object ApplyError:

  /** What the server said about a failed statement. */
  final case class ServerMessage(
      sqlState: String,
      message: String,
      detail: Option[String],
      hint: Option[String],
      where: Option[String],
      position: Option[Int]
  )

  /** A statement (or a COPY body) failed on the server.
    *
    * @param statement
    *   where the statement begins (its `file` is the file's name)
    * @param at
    *   where the error is, as close as the server tells: its position in the statement, or the line
    *   of a COPY body; else the statement's start
    * @param firstLine
    *   the statement's first line
    * @param transactional
    *   whether its file ran in a transaction (then nothing of the file stays applied; else the
    *   statements before this one do)
    * @param applying
    *   the file being applied, when the statement is in another one it includes (`\i`, or a Flyway
    *   callback run inside a migration): what was rolled back
    */
  final case class StatementFailed(
      statement: SqlPosition,
      at: SqlPosition,
      server: ServerMessage,
      firstLine: String,
      transactional: Boolean,
      applying: Option[String] = None
  ) extends ApplyError(""):

    override def getMessage: String = describe("SqlFile.withoutTransaction")

    /** True when the statement cannot run inside a transaction block (SQLSTATE 25001) and its file
      * ran in one: applying the file without a transaction is what to try.
      */
    def withoutTransactionHelps: Boolean = StatementFailed.helps(server, transactional)

    /** The message, naming the way to apply a file without a transaction as `withoutTransaction`
      * (the message itself names [[SqlFile.withoutTransaction]]; a command names its option).
      */
    def describe(withoutTransaction: String): String =
      val suggestion = Option.when(withoutTransactionHelps)(
        s"$withoutTransaction: this statement cannot run inside a transaction block, and weir applies each file in one by default"
      )
      val file = applying.getOrElse(statement.file)
      val rolledBack =
        if transactional then s"nothing of $file was applied: its transaction was rolled back"
        else s"statements of $file before this one stay applied ($withoutTransaction)"
      (said ++ suggestion.map("  try: " + _) ++ List("  " + rolledBack)).mkString("\n")

    /** The message of a failure gone past ([[ApplySettings.withStopAtError]] off). */
    def passed: String =
      (said :+ "  not applied; going on with the next statement (ON_ERROR_STOP off)").mkString("\n")

    private def said: List[String] =
      List(
        s"${at.show}: ERROR ${server.sqlState}: ${server.message}",
        s"  statement at ${statement.show}: $firstLine"
      ) ++ server.detail.map("  detail: " + _) ++ server.hint.map("  hint: " + _) ++
        server.where.map("  where: " + _)

  object StatementFailed:
    private def helps(server: ServerMessage, transactional: Boolean): Boolean =
      server.sqlState == "25001" && transactional

  /** The statement at `at`, ended by psql's `\gset`, ran but returned what `\gset` sets no
    * variables from ([[PsqlGset]]: no rows, more than one, a column name that is not a variable's):
    * `reason`. `transactional` and `applying` as for [[StatementFailed]].
    */
  final case class GsetFailed(
      at: SqlPosition,
      reason: String,
      transactional: Boolean,
      applying: Option[String] = None
  ) extends ApplyError(
        s"${at.show}: \\gset: $reason; " + {
          val file = applying.getOrElse(at.file)
          if transactional then s"nothing of $file was applied: its transaction was rolled back"
          else s"statements of $file before this one stay applied"
        }
      ):

    /** The message of a failure gone past ([[ApplySettings.withStopAtError]] off). */
    def passed: String = s"${at.show}: \\gset: $reason; going on (ON_ERROR_STOP off)"

  /** A COPY body cannot be spread over several connections ([[SqlApplier.spread]]): a line at `at`
    * is longer than a chunk of `chunkBytes`, so no chunk boundary falls between two of its rows.
    */
  final case class CopyLineTooLong(at: SqlPosition, chunkBytes: Int)
      extends ApplyError(
        s"${at.show}: a COPY line longer than a chunk ($chunkBytes bytes) cannot be spread over connections; apply this file on one connection"
      )

  /** A fatal error of the JVM (`cause`: out of memory, a stack overflow, another
    * `VirtualMachineError` or a `LinkageError`) while reading `file` (its reader or the splitter:
    * `reading`) or applying it (a call on the connection), at `line` when known. Caught where it
    * was thrown ([[weir.WeirError.Fatal]]), so that the apply fails, rolls back and ends like any
    * failure instead of hanging (docs/adr/0013-apply-sql-speed.md, "Round 3").
    *
    * @param transactional
    *   whether `file` ran in a transaction (then nothing of it stays applied), once the applier
    *   knows; `None` in what the splitter raises
    */
  final case class Fatal(
      file: String,
      line: Option[Long],
      cause: Throwable,
      reading: Boolean,
      transactional: Option[Boolean] = None
  ) extends ApplyError(null, cause):

    // Made when asked: the error is made where memory may have just run out.
    override def getMessage: String = describe(identity)

    /** The message, naming the JVM option to give as `option` says (`-Xmx256m` as it is; a command
      * names where its users put it, `JAVA_OPTS=-Xmx256m`).
      */
    def describe(option: String => String): String =
      val what = cause match
        case _: OutOfMemoryError   => "out of memory"
        case _: StackOverflowError => "stack overflow"
        case other                 => s"fatal error (${weir.WeirError.Fatal.describe(other)})"
      val where = s"while ${if reading then "reading" else "applying"} $file" +
        line.fold("")(l => s" at line $l")
      val rolledBack = transactional match
        case Some(true)  => s"; nothing of $file was applied: its transaction was rolled back"
        case Some(false) => s"; statements of $file before this stay applied (no transaction)"
        case None        => ""
      val advice = cause match
        case _: OutOfMemoryError =>
          val mb = Runtime.getRuntime.maxMemory / (1024 * 1024)
          s". Give the JVM more heap than its $mb MB: ${option(s"-Xmx${math.max(256L, 4 * mb)}m")}"
        case _: StackOverflowError =>
          s". Give its threads more stack: ${option("-Xss16m")}"
        case _ => ""
      s"$what $where$rolledBack$advice"

  /** No connection: the server is not there, refused us, or the password is wrong. */
  final case class ConnectFailed(target: String, reason: String)
      extends ApplyError(s"cannot connect to $target: $reason")

  /** The connection broke while applying (the server stopped, the network failed). */
  final case class ConnectionLost(target: String, reason: String)
      extends ApplyError(
        s"the connection to $target was lost: $reason; the open transaction, if any, was rolled back by the server"
      )

  /** An applied migration's file changed since it was applied. */
  final case class ChecksumChanged(file: String, recorded: String, now: String)
      extends ApplyError(
        s"$file was applied with SHA-256 $recorded but now has $now: an applied migration must not change (revert the file, or add a new migration with the change)"
      )

  /** A migration that Flyway applied (its row in Flyway's history table) changed since: Flyway's
    * checksum (a CRC32 of its lines, see [[MigrationChecksums]]) differs.
    */
  final case class FlywayChecksumChanged(file: String, recorded: Int, now: Int)
      extends ApplyError(
        s"$file was applied by Flyway with checksum $recorded but now has $now: an applied migration must not change (revert the file, or add a new migration with the change)"
      )

  /** Two migration files have one version (`V1__a.sql` and `V1.0__b.sql`). */
  final case class DuplicateVersion(version: String, first: String, second: String)
      extends ApplyError(
        s"$first and $second have one version ($version): each version must be in one file only (rename one of them to a version of its own); nothing was applied"
      )

  /** A file named as a Flyway migration whose name is not well formed (`Vx__a.sql`). */
  final case class BadMigrationName(file: String, reason: String)
      extends ApplyError(s"$reason; nothing was applied")

  /** A migration file that is not valid UTF-8: `offset` is the byte where the first bad sequence
    * begins (0-based).
    */
  final case class NotUtf8(file: String, offset: Long)
      extends ApplyError(
        s"$file: not valid UTF-8 at byte $offset: save the file as UTF-8 (e.g. iconv -f LATIN1 -t UTF-8); nothing was applied"
      )

  /** A statement that PostgreSQL cannot run inside a transaction block (`VACUUM`, `CREATE INDEX
    * CONCURRENTLY`, ...) in a migration that runs in one, found before anything was applied.
    */
  final case class NeedsNoTransaction(at: SqlPosition, firstLine: String)
      extends ApplyError(
        s"${at.show}: $firstLine: this statement cannot run inside a transaction block, and this migration runs in one; make '${Migrations.noTransactionMarker}' the migration's first line (its statements then commit one by one), best in a migration of its own; nothing was applied"
      )

  /** Flyway's history table records a migration that failed (`success` false): Flyway's own
    * `repair` (or removing the row once the database is fixed by hand) must come first.
    */
  final case class FlywayFailed(table: String, version: Option[String], script: String)
      extends ApplyError(
        s"$table records a failed migration: ${version.fold("")(v => s"version $v, ")}$script (success = false); fix the database by hand and remove the row (or run flyway repair), then run again; nothing was applied"
      )

  /** A file applied in one transaction holds its own `ROLLBACK` (or `ABORT`) of it, which would
    * discard the statements before it and let the rest commit ([[OwnTransaction]]).
    */
  final case class OwnRollback(at: SqlPosition, firstLine: String)
      extends ApplyError(
        s"${at.show}: $firstLine: ${at.file} runs in one transaction, and its own ROLLBACK would discard the statements before it and let the rest commit; remove it, or apply the file with --no-transaction to run it as written; nothing of ${at.file} was applied: its transaction was rolled back"
      )

  /** A migrations directory that cannot be used. */
  final case class BadMigrations(reason: String) extends ApplyError(reason)

  /** weir's own bookkeeping around an apply failed (taking the migrations' lock, reading what is
    * applied, recording a file): `what` the server or the driver said.
    */
  final case class BookkeepingFailed(target: String, what: String, cause: Throwable)
      extends ApplyError(s"weir's migrations bookkeeping on $target failed: $what", cause)

  /** `e` raised around an apply on `target`, as an [[ApplyError]]: itself when it is one, a lost
    * connection (SQLSTATE class 08) as [[ConnectionLost]], anything else as [[BookkeepingFailed]].
    */
  def bookkeeping(target: String, e: Throwable): ApplyError = e match
    case a: ApplyError => a
    case s: java.sql.SQLException if Option(s.getSQLState).exists(_.startsWith("08")) =>
      ConnectionLost(target, Option(s.getMessage).getOrElse(s.toString))
    case other =>
      BookkeepingFailed(target, Option(other.getMessage).getOrElse(other.toString), other)
