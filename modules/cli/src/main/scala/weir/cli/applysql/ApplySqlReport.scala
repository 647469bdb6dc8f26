package weir.cli.applysql

import weir.postgres.{ApplyError, ApplyReport, SplitError}

/** What `weir apply-sql` did, for rendering and its exit code. */
enum ApplySqlReport:

  /** Files were applied (or applying them failed or was interrupted). With `--migrations`,
    * `alreadyApplied` counts the migrations found applied before this run; `timeline` is the
    * progress over time ([[ApplyTimeline]]).
    */
  case Applied(
      report: ApplyReport,
      alreadyApplied: Option[Int],
      warnings: List[String],
      timeline: Vector[ApplyTimeline.Point] = Vector.empty
  )

  /** `--migrations --dry-run`: what would be applied. */
  case DryRun(
      target: String,
      pending: List[ApplySqlReport.Pending],
      alreadyApplied: Int,
      warnings: List[String]
  )

  /** Nothing was applied: the server could not be reached, or the input is wrong. */
  case Refused(error: Throwable)

  /** 0 done, 1 a statement failed or the connection was lost, 2 bad input or no connection, 130
    * interrupted.
    */
  def exitCode: Int = this match
    case Applied(r, _, _, _) =>
      r.outcome match
        case ApplyReport.Outcome.Completed      => 0
        case ApplyReport.Outcome.Interrupted(_) => 130
        case ApplyReport.Outcome.Failed(e)      => ApplySqlReport.codeOf(e)
    case DryRun(_, _, _, _) => 0
    case Refused(e)         => ApplySqlReport.codeOf(e)

object ApplySqlReport:

  /** A migration a dry run would apply. */
  final case class Pending(name: String, bytes: Long, transactional: Boolean)

  private def codeOf(error: Throwable): Int = error match
    case _: ApplyError.StatementFailed | _: ApplyError.ConnectionLost => 1
    case _: ApplyError | _: SplitError                                => 2
    case _                                                            => 1
