package weir.postgres

import cats.effect.IO
import java.nio.file.Files

/** What the apply suites share: a SQL file written by the test, an apply of files on one of
  * [[TestPg]]'s databases, a scalar read back.
  */
object ApplyFixtures:

  /** `text` as `name` in a directory of its own, deleted with `temp`. */
  def file(text: String, name: String = "t.sql")(using temp: TempPaths): IO[SqlFile] = IO.blocking {
    val dir = temp.directory("weir-apply-")
    val path = dir.resolve(name)
    Files.writeString(path, text)
    SqlFile(path, name, Files.size(path), transactional = true)
  }

  def apply(
      target: PgTarget,
      files: List[SqlFile],
      settings: ApplySettings = ApplySettings.default,
      interrupt: IO[Unit] = IO.never
  ): IO[ApplyReport] =
    PgSession.open[IO](target).use { session =>
      SqlApplier
        .create[IO](session, settings)
        .flatMap(_.start(files).use(_.reportStoppingOn(interrupt)))
    }

  /** The report of applying `f` on `target`, and the lines it said (`\echo`, notices, `-a`...). */
  def said(
      target: PgTarget,
      f: SqlFile,
      settings: ApplySettings = ApplySettings.default
  ): IO[(ApplyReport, List[String])] =
    PgSession.open[IO](target).use { session =>
      SqlApplier.create[IO](session, settings).flatMap { applier =>
        applier.start(List(f)).use(run => run.report.map(r => (r, run.progress.echoed())))
      }
    }

  /** `script` applied by weir (as `file`, then `prepare`d, with `settings`) and by psql 15 (with
    * `flags`), each on a database of its own named after `name`; then `rows` read on each.
    */
  def sideBySide(
      name: String,
      script: String,
      settings: ApplySettings,
      flags: Seq[String],
      rows: String,
      prepare: SqlFile => SqlFile = identity
  )(using TempPaths): IO[SideBySide] =
    for
      ours <- TestPg.database(s"${name}_weir")
      theirs <- TestPg.database(s"${name}_psql")
      result <- file(script).flatMap(f => said(ours, prepare(f), settings))
      printed <- TestPg.psql(theirs, script, flags*)
      ourRows <- scalar(ours, rows)
      theirRows <- scalar(theirs, rows)
    yield SideBySide(result._1, result._2, printed, ourRows, theirRows)

  /** What [[sideBySide]] saw: weir's report and the lines it said, psql's printed lines, and the
    * rows read after each.
    */
  final case class SideBySide(
      report: ApplyReport,
      said: List[String],
      printed: List[String],
      ourRows: Option[String],
      theirRows: Option[String]
  )

  def scalar(target: PgTarget, sql: String): IO[Option[String]] =
    PgSession.open[IO](target).use(_.query(sql)).map(_.headOption.flatMap(_.head))
