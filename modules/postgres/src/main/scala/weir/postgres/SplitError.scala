package weir.postgres

/** Why a SQL file cannot be split into statements. Each message starts with `file:line` (and the
  * column where known) of where the problem begins and says what to do.
  */
sealed abstract class SplitError(message: String) extends Exception(message)

object SplitError:

  /** A psql meta-command (a line starting with `\`, outside a COPY body); `command` is its line,
    * cut to 60 characters.
    */
  final case class MetaCommand(file: String, line: Long, command: String)
      extends SplitError(
        s"$file:$line: psql meta-command $command: weir apply-sql prints no results and runs no shell commands; of psql's backslash commands it follows \\i, \\ir, \\copy ... from, \\set, \\unset, \\if, \\echo, \\g, \\gset, \\gexec, \\connect, \\getenv and \\q (remove the line, or apply this file with psql)"
      )

  /** Bytes that are not UTF-8: `byte` is the first byte that cannot follow, or
    * [[InvalidUtf8.AtEnd]] when the file ends inside a character.
    */
  final case class InvalidUtf8(file: String, line: Long, byte: Int)
      extends SplitError(
        s"$file:$line: invalid UTF-8 (${InvalidUtf8.what(byte)}): weir reads SQL files as UTF-8; convert the file (iconv -f LATIN1 -t UTF-8) first"
      )

  object InvalidUtf8:
    /** The `byte` of a file that ends inside a character. */
    val AtEnd: Int = -1

    private def what(byte: Int): String =
      if byte == AtEnd then "the file ends inside a character" else f"byte 0x$byte%02x"

  /** A file that is not SQL text (a pg_dump archive, a compressed file): `what` it is, `instead`
    * how to apply it ([[NotSqlText]]).
    */
  final case class NotSql(file: String, what: String, instead: String)
      extends SplitError(s"$file is $what, not SQL text: $instead")

  /** A quoted string, quoted identifier, dollar quote or block comment still open at the end. */
  final case class Unterminated(at: SqlPosition, what: String)
      extends SplitError(s"${at.show}: unterminated $what: it begins here and never ends")

  /** A file included at `at` (`\i path`) that cannot be read, or includes itself. */
  final case class IncludeFailed(at: SqlPosition, path: String, reason: String)
      extends SplitError(s"${at.show}: \\i $path: $reason")

  /** The file of a `\copy ... from FILE` line at `at` cannot be read. */
  final case class CopyFileFailed(at: SqlPosition, path: String, reason: String)
      extends SplitError(s"${at.show}: \\copy from $path: $reason")

  /** Something weir cannot apply faithfully (named in `reason`). */
  final case class Unsupported(at: SqlPosition, reason: String)
      extends SplitError(s"${at.show}: $reason")

  /** A Flyway placeholder (`${name}`) with no value, in a migration whose placeholders are replaced
    * ([[PlaceholderFilter]]); `name` as the file spells it.
    */
  final case class UnknownPlaceholder(at: SqlPosition, name: String)
      extends SplitError(
        if name.toLowerCase(java.util.Locale.ROOT).startsWith("flyway:") then
          s"${at.show}: $${$name} is not one of Flyway's built-in placeholders (${FlywayPlaceholders.builtIn
              .mkString(", ")})"
        else
          s"${at.show}: no value for the placeholder $${$name}: Flyway's placeholders are replaced in a directory of Flyway's migration names, as Flyway replaces them; give it a value (weir apply-sql --placeholder $name=VALUE), or turn replacement off (--no-placeholders) to send the text as it is"
      )
