package weir.postgres

import scala.concurrent.duration.*

/** What [[ApplyHandler]] knows across steps: the file being applied (its statements, COPY rows, and
  * `reached`, the bytes up to the end of the last piece it applied), what is done and the rows of
  * the last statement applied (psql's `ROW_COUNT`, [[PsqlResults]]), or its `failure` (SQLSTATE and
  * message) when it failed and was gone past, `failed` counting those
  * ([[ApplySettings.withStopAtError]]); `unbroken`, a spread COPY's last chunk when it ends inside
  * a line, held back until the next chunk or the body's end says whether the line was cut or is the
  * last.
  */
private[postgres] final case class ApplyState(
    file: Option[SqlFile],
    fileStart: FiniteDuration,
    fileStatements: Long,
    fileRows: Long,
    copy: Option[SqlPiece.Statement],
    copyLines: Long,
    done: Vector[ApplyReport.FileDone],
    warnings: Vector[String],
    unbroken: Option[SqlPiece.CopyData] = None,
    reached: Long = 0,
    rowCount: Option[Long] = None,
    failure: Option[(String, String)] = None,
    lastError: Option[(String, String)] = None,
    failed: Long = 0
):
  /** psql's variables for the last statement ([[PsqlResults.after]]). */
  def results: Map[String, String] = PsqlResults.after(rowCount, failure, lastError)

  /** The last statement succeeded with `rows` rows (psql's `ROW_COUNT`). */
  def counted(rows: Long): ApplyState = copy(rowCount = Some(rows), failure = None)

  /** A statement ending at `end` failed and was gone past: with `error` (its SQLSTATE and message)
    * for psql's variables, or none, which it leaves as they were ([[PsqlResults]]).
    */
  def passed(error: Option[(String, String)], end: Mark): ApplyState =
    val counted = copy(failed = failed + 1, reached = end.bytes)
    error.fold(counted)(e =>
      counted.copy(rowCount = Some(0), failure = Some(e), lastError = Some(e))
    )

  def startFile(f: SqlFile, now: FiniteDuration): ApplyState =
    copy(file = Some(f), fileStart = now, fileStatements = 0, fileRows = 0, reached = 0)
  def statements(n: Int, end: Mark): ApplyState =
    copy(fileStatements = fileStatements + n, reached = end.bytes)
  def copyAt(s: SqlPiece.Statement): ApplyState =
    copy(copy = Some(s), copyLines = 0, unbroken = None)
  def copied(rows: Long, end: SqlPiece.CopyEnd): ApplyState =
    val warning =
      if end.terminated then None
      else
        Some(
          s"${end.copy.show}: the COPY body ended at the end of the file, not at a \\. line (was the file cut short?)"
        )
    copy(
      fileStatements = fileStatements + 1,
      fileRows = fileRows + rows,
      copy = None,
      unbroken = None,
      warnings = warnings ++ warning,
      reached = end.end.bytes
    )
  def finished(f: SqlFile, sha256: String, took: FiniteDuration, bytes: Long): ApplyState =
    copy(
      file = None,
      done = done :+ ApplyReport.FileDone(f.name, fileStatements, fileRows, bytes, took, sha256)
    )

  /** The file stopped in, at `now`, if it has no transaction and something of it was applied. */
  def partly(now: FiniteDuration): Option[ApplyReport.FileDone] =
    file.filter(f => !f.transactional && fileStatements > 0).map { f =>
      ApplyReport.FileDone(f.name, fileStatements, fileRows, reached, now - fileStart, "")
    }

private[postgres] object ApplyState:
  val empty: ApplyState = ApplyState(None, Duration.Zero, 0, 0, None, 0, Vector.empty, Vector.empty)
