package weir.postgres

import cats.effect.Async
import cats.syntax.all.*
import java.time.LocalDateTime
import java.time.format.DateTimeFormatter

/** The placeholders of a run over a directory of Flyway's names: the caller's
  * ([[MigrationSettings.placeholders]]) and Flyway's built-in ones, with the values Flyway gives
  * them: `flyway:database`, `flyway:user` and `flyway:defaultSchema` (the session's database, user
  * and current schema, or the schema of [[MigrationSettings.flywayTable]] when it names one),
  * `flyway:table` (Flyway's history table, without its schema), `flyway:timestamp` (when the run
  * began, `yyyy-MM-dd HH:mm:ss` in the JVM's zone), `flyway:workingDirectory`, `flyway:environment`
  * (`default`) and `flyway:filename` (each file's own name). Names in lower case, as looked up.
  */
private[postgres] final case class FlywayPlaceholders(values: Map[String, String]):

  /** The values for the file named `fileName`. */
  def forFile(fileName: String): Map[String, String] = values + ("flyway:filename" -> fileName)

private[postgres] object FlywayPlaceholders:

  /** Flyway's built-in placeholders, as its documentation spells them. */
  val builtIn: List[String] = List(
    "flyway:database",
    "flyway:defaultSchema",
    "flyway:environment",
    "flyway:filename",
    "flyway:table",
    "flyway:timestamp",
    "flyway:user",
    "flyway:workingDirectory"
  )

  private val timestamp = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss")

  /** `set` as a run reads it. In a directory of Flyway's names, with replacement on: every file
    * that holds a `${` with the run's placeholders (the others are sent as they are, unscanned: a
    * large COPY migration costs nothing more), and each such repeatable's checksums taken over its
    * text with them replaced (Flyway records a repeatable's checksum so, and runs it again when a
    * value changes; a versioned file's checksums stay its bytes', as Flyway's). `Left` when a
    * repeatable has a placeholder with no value, and when `settings` give placeholders for a
    * directory of weir's names. Reads each repeatable once, on the blocking pool. Driver and I/O
    * errors are raised.
    */
  private[postgres] def prepare[F[_]: Async](
      session: PgSession[F],
      set: MigrationSet,
      settings: MigrationSettings
  ): F[Either[ApplyError, MigrationSet]] =
    if !settings.replacePlaceholders || set.files.isEmpty then Async[F].pure(Right(set))
    else if !set.flyway then
      Async[F].pure(
        Either.cond(
          settings.placeholders.isEmpty,
          set,
          ApplyError.BadMigrations(
            s"placeholders (${settings.placeholders.keys.toList.sorted.map(k => s"$${$k}").mkString(", ")}) are replaced in a directory of Flyway's migration names (V1__init.sql, R__views.sql) only, and this one holds weir's names: drop them; nothing was applied"
          )
        )
      )
    else
      of(session, settings).flatMap { run =>
        (set.files ++ set.callbacks)
          .traverse { f =>
            val file = f.file.replacing(run.forFile(f.file.path.getFileName.toString))
            if !f.checksums.holdsPlaceholder then Async[F].pure(Right(f))
            else if f.kind != "repeatable" then Async[F].pure(Right(f.copy(file = file)))
            else
              MigrationChecksums
                .of(file.text[F])
                .map(sums => Right(f.copy(file = file, checksums = sums)))
                .recover { case e: SplitError => Left(refused(e)) }
          }
          .map(_.sequence.map { all =>
            val (files, callbacks) = all.splitAt(set.files.size)
            set.copy(files = files, callbacks = callbacks)
          })
      }

  /** The first of `pending` with a placeholder with no value (or never closed), as an error naming
    * its file, line and column; `None` when every one has its value. Reads each file once (its
    * placeholders replaced) on the blocking pool, but a repeatable, which [[prepare]] read; I/O
    * errors are raised.
    */
  private[postgres] def unknown[F[_]: Async](pending: List[MigrationFile]): F[Option[ApplyError]] =
    pending.collectFirstSomeM { f =>
      // A repeatable with placeholders was read through them already, for its checksums (prepare).
      if f.file.placeholders.isEmpty || f.kind == "repeatable" then Async[F].pure(None)
      else
        f.file
          .text[F]
          .compile
          .drain
          .as(Option.empty[ApplyError])
          .recover { case e: SplitError => Some(refused(e)) }
    }

  private def refused(e: SplitError): ApplyError =
    ApplyError.BadMigrations(s"${e.getMessage}; nothing was applied")

  /** The run's placeholders on `session` (one query for the session's database, user and schema).
    * Driver errors are raised.
    */
  private[postgres] def of[F[_]: Async](
      session: PgSession[F],
      settings: MigrationSettings
  ): F[FlywayPlaceholders] =
    session.query("SELECT current_database(), current_user, current_schema()").flatMap { rows =>
      Async[F].delay {
        val row = rows.headOption.getOrElse(Vector.empty).map(_.getOrElse(""))
        def at(i: Int) = row.lift(i).getOrElse("")
        val (tableSchema, table) = settings.flywayTable.split('.') match
          case Array(schema, name) => (Some(schema), name)
          case _                   => (None, settings.flywayTable)
        val own = Map(
          "flyway:database" -> at(0),
          "flyway:user" -> at(1),
          "flyway:defaultschema" -> tableSchema.getOrElse(at(2)),
          "flyway:table" -> table,
          "flyway:timestamp" -> LocalDateTime.now().format(timestamp),
          "flyway:workingdirectory" -> System.getProperty("user.dir", ""),
          "flyway:environment" -> "default"
        )
        // Flyway's own values win over the caller's, as in Flyway.
        FlywayPlaceholders(
          settings.placeholders.map((k, v) => PlaceholderFilter.key(k) -> v) ++ own
        )
      }
    }
