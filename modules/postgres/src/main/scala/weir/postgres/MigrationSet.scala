package weir.postgres

import java.nio.file.{Files, Path}
import scala.jdk.CollectionConverters.*

/** The migrations of a directory, in the order they apply, and the undo files it ignores.
  *
  * '''Order.''' A directory holds weir's names (any `*.sql`: applied in name order) or Flyway's
  * (`V<version>__<description>.sql` in version order, then `R__<description>.sql` in description
  * order), not both: a directory that mixes them is refused, since no order of the two is obviously
  * right. Flyway's undo files (`U<version>__...`) are listed in [[ignored]] and never run.
  */
final case class MigrationSet(files: List[MigrationFile], ignored: List[String]):

  /** True when the files are Flyway's names. */
  def flyway: Boolean = files.exists(_.name.flyway)

object MigrationSet:

  /** The migrations in `dir`. Blocking: it reads every file once (its checksums, and that it is
    * UTF-8). `Left` (naming the file and what to do) when `dir` is not a directory, a Flyway name
    * is not well formed, two files have one version, the directory mixes weir's and Flyway's names,
    * or a file is not UTF-8. I/O errors are raised.
    */
  def load(dir: Path): Either[ApplyError, MigrationSet] =
    if !Files.isDirectory(dir) then Left(ApplyError.BadMigrations(s"$dir: not a directory"))
    else
      val paths = Files
        .list(dir)
        .iterator
        .asScala
        .filter(p => p.getFileName.toString.endsWith(".sql") && Files.isRegularFile(p))
        .toList
        .sortBy(_.getFileName.toString)
      val named = paths.map(p => (p, MigrationName.parse(p.getFileName.toString)))
      named.collectFirst { case (p, Left(why)) => (p, why) } match
        case Some((p, why)) =>
          Left(ApplyError.BadMigrationName(p.getFileName.toString, why))
        case None =>
          val all = named.collect { case (p, Right(n)) => (p, n) }
          val (undo, kept) = all.partition(_._2.isInstanceOf[MigrationName.Undo])
          mixed(kept).orElse(duplicate(kept)) match
            case Some(error) => Left(error)
            case None =>
              kept
                .foldLeft[Either[ApplyError, List[MigrationFile]]](Right(Nil)) {
                  case (Right(done), (p, n)) => file(p, n).map(_ :: done)
                  case (left, _)             => left
                }
                .map(files =>
                  MigrationSet(ordered(files.reverse), undo.map(_._1.getFileName.toString))
                )

  private def file(p: Path, name: MigrationName): Either[ApplyError, MigrationFile] =
    val fileName = p.getFileName.toString
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

  private def mixed(files: List[(Path, MigrationName)]): Option[ApplyError] =
    val (flyway, weir) = files.partition(_._2.flyway)
    Option.when(flyway.nonEmpty && weir.nonEmpty)(
      ApplyError.BadMigrations(
        s"${weir.head._1.getParent}: ${weir.head._1.getFileName} is not named as Flyway names migrations, but ${flyway.head._1.getFileName} is: a directory holds Flyway's names (V<version>__<description>.sql, R__<description>.sql) or weir's (any other *.sql, in name order), not both; rename ${weir.head._1.getFileName} (e.g. V<next version>__${weir.head._1.getFileName})"
      )
    )

  private def duplicate(files: List[(Path, MigrationName)]): Option[ApplyError] =
    val versioned = files.collect { case (p, MigrationName.Versioned(v, _)) => (p, v) }
    versioned.sortBy(_._2).sliding(2).collectFirst {
      case List((a, va), (b, vb)) if va.sameAs(vb) =>
        ApplyError.DuplicateVersion(va.toString, a.getFileName.toString, b.getFileName.toString)
    }

  // Weir's names by name; Flyway's versioned by version, then repeatables by description.
  private def ordered(files: List[MigrationFile]): List[MigrationFile] =
    val versioned = files.filter(_.version.isDefined).sortBy(_.version.get)
    val repeatable = files.collect { case f @ MigrationFile(_, MigrationName.Repeatable(d), _) =>
      (d, f)
    }
    val plain = files.filter(_.name == MigrationName.Plain).sortBy(_.fileName)
    plain ++ versioned ++ repeatable.sortBy(_._1).map(_._2)
