package weir.cli.applysql

import weir.{ConfigError, WeirError}
import weir.cli.common.Exit
import weir.postgres.{ApplyError, ApplyRecorder, ApplyReport, MigrationStatus, SplitError}

/** What `weir apply-sql` did, for rendering and its exit code. */
enum ApplySqlReport:

  /** Files were applied (or applying them failed or was interrupted). With `--migrations`,
    * `alreadyApplied` counts the migrations found applied before this run; `timeline` is the
    * progress over time (the run's [[weir.postgres.ApplyRecorder.points]]).
    */
  case Applied(
      report: ApplyReport,
      alreadyApplied: Option[Int],
      warnings: List[String],
      timeline: Vector[ApplyRecorder.Point] = Vector.empty
  )

  /** `--migrations --dry-run`: what would be applied. */
  case DryRun(
      target: String,
      pending: List[ApplySqlReport.Pending],
      alreadyApplied: Int,
      warnings: List[String]
  )

  /** `--migrations --status`: where each migration stands. */
  case Status(target: String, status: MigrationStatus)

  /** Nothing was applied: the server could not be reached, or the input is wrong. */
  case Refused(error: Throwable)

  /** 0 done, 1 a statement failed (gone past with `ON_ERROR_STOP` off too) or the connection was
    * lost, 2 bad input or no connection, 3 a fatal error of the JVM (out of memory; the file rolled
    * back), 130 interrupted.
    */
  def exitCode: Int = this match
    case Applied(r, _, _, _) =>
      r.outcome match
        case ApplyReport.Outcome.Completed if r.failed > 0 => 1
        case ApplyReport.Outcome.Completed                 => 0
        case ApplyReport.Outcome.Interrupted(_, _)         => 130
        case ApplyReport.Outcome.Failed(e)                 => ApplySqlReport.codeOf(e)
    case DryRun(_, _, _, _) => 0
    case Status(_, _)       => 0
    case Refused(e)         => ApplySqlReport.codeOf(e)

  /** This report with its error, if any, in the command's words ([[ApplySqlReport.Worded]]). */
  def inCommandWords: ApplySqlReport = this match
    case a @ Applied(r, _, _, _) =>
      r.outcome match
        case ApplyReport.Outcome.Failed(e) =>
          ApplySqlReport
            .worded(e)
            .fold(a)(w => a.copy(report = r.copy(outcome = ApplyReport.Outcome.Failed(w))))
        case _ => a
    case Refused(e) => ApplySqlReport.worded(e).fold(this)(Refused(_))
    case other      => other

object ApplySqlReport:

  /** A migration a dry run would apply (or a Flyway callback, `callback`): its statements in order,
    * as they would be sent (a COPY's statement without its body, whose rows are counted in
    * `copyRows`), and the callbacks that would run inside its transaction (`inside`); `notes`: what
    * the list cannot show (what a psql `\\gexec` would run; after a `\\gset`, the rest of the file,
    * which depends on a row a dry run does not read).
    */
  final case class Pending(
      name: String,
      bytes: Long,
      transactional: Boolean,
      version: Option[String],
      statements: List[String],
      copyRows: Long,
      callback: Boolean = false,
      inside: List[String] = Nil,
      notes: List[String] = Nil
  )

  /** A library error whose message named the library's own API, in this command's words: what
    * stderr, `--format json` and the page print. `cause` is the library's error.
    */
  final case class Worded(text: String, cause: Throwable) extends Exception(text, cause)

  // The library's error in this command's words, when they differ.
  private def worded(error: Throwable): Option[Worded] = error match
    case e: ApplyError.StatementFailed =>
      val text = e.describe("--no-transaction")
      Option.when(text != e.getMessage)(Worded(text, e))
    case e: ApplyError.Fatal => Some(Worded(e.describe(o => s"JAVA_OPTS=$o"), e))
    case e @ ApplyError.CopyLineTooLong(at, chunk) =>
      Some(
        Worded(
          s"${at.show}: --parallel-copy: a COPY line longer than a chunk (${chunk / 1024} KB) cannot be spread over connections; apply this file without --parallel-copy",
          e
        )
      )
    case _ => None

  private def codeOf(error: Throwable): Int = error match
    case e if fatal(e)                                                => Exit.Fatal.code
    case Worded(_, cause)                                             => codeOf(cause)
    case _: ApplyError.StatementFailed | _: ApplyError.ConnectionLost => 1
    case _: ApplyError.GsetFailed                                     => 1
    case _: ApplyError | _: SplitError | _: ConfigError               => 2
    case _                                                            => 1

  // A fatal error of the JVM, or an error caused by one (weir's bookkeeping around a fatal call).
  private def fatal(error: Throwable): Boolean =
    Iterator
      .iterate(error)(_.getCause)
      .takeWhile(_ != null)
      .take(8)
      .exists(e => e.isInstanceOf[ApplyError.Fatal] || e.isInstanceOf[WeirError.Fatal])
