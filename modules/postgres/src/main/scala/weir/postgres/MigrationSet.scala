package weir.postgres

import java.nio.file.{Files, Path}
import scala.jdk.CollectionConverters.*

/** The migrations of a directory (or of several, as Flyway's locations), in the order they apply,
  * and the undo files it ignores.
  *
  * '''Order.''' A directory holds weir's names (any `*.sql`: applied in name order) or Flyway's
  * (`V<version>__<description>.sql` in version order, then `R__<description>.sql` in description
  * order; in its subdirectories too, as Flyway reads them, each named by its path under the
  * directory, `sub/V2__x.sql`, as Flyway's history names it), not both: a directory that mixes them
  * is refused, since no order of the two is obviously right. Flyway's undo files
  * (`U<version>__...`) are listed in [[ignored]] and never run.
  */
final case class MigrationSet(
    files: List[MigrationFile],
    ignored: List[String],
    callbacks: List[MigrationFile] = Nil
):

  /** The callbacks of `event` (`beforeMigrate`...), in name order. */
  def callbacksAt(event: String): List[MigrationFile] =
    callbacks
      .filter(_.name match
        case MigrationName.Callback(e, _) => e == event
        case _                            => false
      )
      .sortBy(_.fileName)

  /** True when the files are Flyway's names. */
  def flyway: Boolean = files.exists(_.name.flyway)

object MigrationSet:

  /** The migrations in `dir`. Blocking: it reads every file once (its checksums, and that it is
    * UTF-8). `Left` (naming the file and what to do) when `dir` is not a directory, a Flyway name
    * is not well formed, two files have one version, the directory mixes weir's and Flyway's names,
    * or a file is not UTF-8. I/O errors are raised.
    */
  def load(dir: Path): Either[ApplyError, MigrationSet] = load(List(dir))

  /** The migrations in `dirs` taken together, as Flyway takes several locations: one order over all
    * of them, each file named by its path under its own directory (as Flyway's history names it).
    * [[load]]'s refusals apply across them too: two files with one version or one name in two
    * directories are refused.
    */
  def load(dirs: List[Path]): Either[ApplyError, MigrationSet] =
    dirs.find(d => !Files.isDirectory(d)) match
      case Some(dir) => Left(ApplyError.BadMigrations(s"$dir: not a directory"))
      case None      =>
        // Flyway reads its locations' subdirectories too: a directory of Flyway's names is read whole.
        val everything = dirs.flatMap(dir => sqlFiles(dir).map(p => (dir, p)))
        val flyway =
          everything.filter((_, p) => MigrationName.parse(p.getFileName.toString).exists(_.flyway))
        val all =
          if flyway.nonEmpty then everything else everything.filter((dir, p) => p.getParent == dir)
        // Each file's name: its path under its own directory.
        val names = all.map((dir, p) => p -> relative(dir, p)).toMap
        val named = all.map((_, p) => (p, MigrationName.parse(p.getFileName.toString)))
        named.collectFirst { case (p, Left(why)) => (p, why) } match
          case Some((p, why)) =>
            Left(ApplyError.BadMigrationName(p.getFileName.toString, why))
          case None =>
            val all = named.collect { case (p, Right(n)) => (p, n) }.map { (p, n) =>
              // In a directory of Flyway's names, a callback's name is a callback's.
              (
                p,
                callbackEvent(p).filter(_ => flyway.nonEmpty && n == MigrationName.Plain).fold(n) {
                  event =>
                    val base = p.getFileName.toString.stripSuffix(".sql")
                    val cut = base.indexOf("__")
                    val description =
                      if cut < 0 then "" else base.substring(cut + 2).replace('_', ' ')
                    MigrationName.Callback(event, description)
                }
              )
            }
            val (undo, kept) = all.partition(_._2.isInstanceOf[MigrationName.Undo])
            mixed(kept)
              .orElse(duplicate(names, kept))
              .orElse(sameDescription(names, kept))
              .orElse(sameName(names, kept)) match
              case Some(error) => Left(error)
              case None =>
                kept
                  .foldLeft[Either[ApplyError, List[MigrationFile]]](Right(Nil)) {
                    case (Right(done), (p, n)) => file(names(p), p, n).map(_ :: done)
                    case (left, _)             => left
                  }
                  .map { files =>
                    val (callbacks, migrations) = files.reverse.partition(_.kind == "callback")
                    MigrationSet(
                      ordered(migrations),
                      undo.map(_._1.getFileName.toString),
                      callbacks
                    )
                  }

  /** The `*.sql` files of `dir` and of its subdirectories, in path order. */
  private def sqlFiles(dir: Path): List[Path] =
    val found = Files.walk(dir)
    try
      found.iterator.asScala
        .filter(p => p.getFileName.toString.endsWith(".sql") && Files.isRegularFile(p))
        .toList
        .sortBy(p => relative(dir, p))
    finally found.close()

  /** `p` as named under `dir`: its file name, or `sub/V2__x.sql` in a subdirectory (as Flyway's
    * history names it).
    */
  private def relative(dir: Path, p: Path): String =
    dir.relativize(p).iterator.asScala.map(_.toString).mkString("/")

  private def file(
      fileName: String,
      p: Path,
      name: MigrationName
  ): Either[ApplyError, MigrationFile] =
    MigrationChecksums.of(p, fileName).map { sums =>
      val sql = SqlFile(
        p,
        fileName,
        Files.size(p),
        transactional = firstLine(p) != Migrations.noTransactionMarker
      )
      MigrationFile(sql, name, sums)
    }

  // The first line, without a byte order mark and surrounding blanks (the file is UTF-8: checked).
  private def firstLine(p: Path): String =
    val reader = Files.newBufferedReader(p)
    try Option(reader.readLine()).getOrElse("").stripPrefix("\uFEFF").trim
    finally reader.close()

  /** Flyway's callback events: `afterMigrate.sql`, `beforeEachMigrate__grants.sql`... */
  private val flywayEvents = Set(
    "afterBaseline",
    "afterBaselineError",
    "afterClean",
    "afterCleanError",
    "afterConnect",
    "afterEachMigrate",
    "afterEachMigrateError",
    "afterEachMigrateStatement",
    "afterEachMigrateStatementError",
    "afterEachUndo",
    "afterEachUndoError",
    "afterEachUndoStatement",
    "afterEachUndoStatementError",
    "afterInfo",
    "afterInfoError",
    "afterMigrate",
    "afterMigrateApplied",
    "afterMigrateError",
    "afterRepair",
    "afterRepairError",
    "afterUndo",
    "afterUndoError",
    "afterValidate",
    "afterValidateError",
    "afterVersioned",
    "beforeBaseline",
    "beforeClean",
    "beforeConnect",
    "beforeCreateSchema",
    "beforeEachMigrate",
    "beforeEachMigrateStatement",
    "beforeEachUndo",
    "beforeEachUndoStatement",
    "beforeInfo",
    "beforeMigrate",
    "beforeRepair",
    "beforeRepeatables",
    "beforeUndo",
    "beforeValidate",
    "createSchema"
  )

  /** The Flyway callback event a file's name gives (`afterMigrate__grants.sql`), if any. */
  private def callbackEvent(p: Path): Option[String] =
    val base = p.getFileName.toString.stripSuffix(".sql")
    val event = base.indexOf("__") match
      case -1  => base
      case cut => base.substring(0, cut)
    Option.when(flywayEvents.contains(event))(event)

  private def mixed(files: List[(Path, MigrationName)]): Option[ApplyError] =
    val (flyway, weir) = files.partition(_._2.flyway)
    val callback = files.collectFirst {
      case (p, MigrationName.Callback(event, _)) if !Migrations.callbackEvents.contains(event) =>
        (p, event)
    }
    callback match
      case Some((p, "afterEachMigrateError")) =>
        Some(
          ApplyError.BadMigrations(
            s"${p.getFileName} is a Flyway SQL callback run at afterEachMigrateError, which Flyway runs inside the failed migration's transaction, where PostgreSQL runs no statement (it fails with 25P02 and hides the migration's error): name it afterMigrateError instead, run after the failed migration is rolled back; nothing was applied"
          )
        )
      case Some((p, event)) =>
        Some(
          ApplyError.BadMigrations(
            s"${p.getFileName} is a Flyway SQL callback run at $event, and weir runs only the ${Migrations.callbackEvents.mkString(", ")} callbacks: move what it does into a migration (a repeatable R__<description>.sql runs again whenever it changes), or run it yourself around weir; nothing was applied"
          )
        )
      case None => plainAmongFlyway(flyway, weir)

  private def plainAmongFlyway(
      flyway: List[(Path, MigrationName)],
      weir: List[(Path, MigrationName)]
  ): Option[ApplyError] =
    Option.when(flyway.nonEmpty && weir.nonEmpty)(
      ApplyError.BadMigrations(
        s"${weir.head._1.getParent}: ${weir.head._1.getFileName} is not named as Flyway names migrations, but ${flyway.head._1.getFileName} is: a directory holds Flyway's names (V<version>__<description>.sql, R__<description>.sql) or weir's (any other *.sql, in name order), not both; rename ${weir.head._1.getFileName} (e.g. V<next version>__${weir.head._1.getFileName})"
      )
    )

  private def duplicate(
      names: Map[Path, String],
      files: List[(Path, MigrationName)]
  ): Option[ApplyError] =
    val versioned = files.collect { case (p, MigrationName.Versioned(v, _)) => (p, v) }
    versioned.sortBy(_._2).sliding(2).collectFirst {
      case List((a, va), (b, vb)) if va.sameAs(vb) =>
        ApplyError.DuplicateVersion(va.toString, shown(names, a), shown(names, b))
    }

  // Two files of one name under two directories: one name in the history for both.
  private def sameName(
      names: Map[Path, String],
      files: List[(Path, MigrationName)]
  ): Option[ApplyError] =
    files.groupBy((p, _) => names(p)).collectFirst { case (name, (a, _) :: (b, _) :: _) =>
      ApplyError.BadMigrations(
        s"$a and $b have one name ($name) in two directories: a migration is recorded by its name, so each name must be in one directory only (rename one of them); nothing was applied"
      )
    }

  // A file as messages name it: its name, or its path when directories' names could be alike.
  private def shown(names: Map[Path, String], p: Path): String =
    if names.values.count(_ == names(p)) > 1 then p.toString else names(p)

  // Two repeatables with one description (in two subdirectories): Flyway refuses them too.
  private def sameDescription(
      names: Map[Path, String],
      files: List[(Path, MigrationName)]
  ): Option[ApplyError] =
    files
      .collect { case (p, MigrationName.Repeatable(d)) => (d, shown(names, p)) }
      .groupBy(_._1)
      .collectFirst { case (d, List((_, a), (_, b), _*)) =>
        ApplyError.BadMigrations(
          s"$a and $b are repeatable migrations with one description ($d): each description must be in one file only (rename one of them); nothing was applied"
        )
      }

  // Weir's names by name; Flyway's versioned by version, then repeatables by description.
  private def ordered(files: List[MigrationFile]): List[MigrationFile] =
    val versioned = files.filter(_.version.isDefined).sortBy(_.version.get)
    val repeatable = files.collect { case f @ MigrationFile(_, MigrationName.Repeatable(d), _) =>
      (d, f)
    }
    val plain = files.filter(_.name == MigrationName.Plain).sortBy(_.fileName)
    plain ++ versioned ++ repeatable.sortBy(_._1).map(_._2)
