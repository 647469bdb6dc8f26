package weir.postgres

import cats.effect.IO
import java.nio.file.Files

/** What the apply suites share: a SQL file written by the test, an apply of files on one of
  * [[TestPg]]'s databases, a scalar read back.
  */
object ApplyFixtures:

  def file(text: String, name: String = "t.sql"): IO[SqlFile] = IO.blocking {
    val dir = Files.createTempDirectory("weir-apply-")
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

  def scalar(target: PgTarget, sql: String): IO[Option[String]] =
    PgSession.open[IO](target).use(_.query(sql)).map(_.headOption.flatMap(_.head))
