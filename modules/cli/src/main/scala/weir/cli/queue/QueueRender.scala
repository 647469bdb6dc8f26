package weir.cli.queue

import io.circe.Json
import weir.cli.common.AppliedText
import weir.postgres.Migrations
import weir.postgres.queue.{JobState, QueueAdmin, QueueSchemaName}

/** `weir queue init`, `stats`, `retry`, `pause`, `resume` and `cancel` on stdout: text or JSON
  * (circe) where the command has `--format`.
  */
object QueueRender:

  /** `weir queue init`'s summary: the same lines as `weir apply-sql --migrations` prints (the
    * command once ran through it, and scripts may read them): a head line, then a row per migration
    * applied and the total.
    */
  def migrated(m: Migrations.Result): String =
    AppliedText(m.report, Some(m.alreadyApplied), m.warnings)

  /** `weir queue init`'s summary when nothing could be applied (the reason is on stderr). */
  val notMigrated: String = AppliedText.nothingApplied

  def stats(
      s: QueueAdmin.Stats,
      json: Boolean,
      schema: QueueSchemaName = QueueSchemaName.default
  ): String =
    val states = JobState.values.toList.map(st => st.sql -> s.count(st))
    val rejected = s.rejected.values.sum
    if json then
      Json
        .obj(
          "queue" -> s.queue.fold(Json.Null)(Json.fromString),
          "jobs" -> Json.obj(states.map((k, v) => k -> Json.fromLong(v))*),
          "completedLastMinute" -> Json.fromLong(s.completedLastMinute),
          "completedPerSecond" -> Json.fromDoubleOrNull(s.completedLastMinute / 60.0),
          "oldestAvailableSeconds" -> s.oldestAvailableSeconds
            .fold(Json.Null)(Json.fromDoubleOrNull),
          "expiredLeases" -> Json.fromLong(s.expiredLeases),
          "rejectedLateWrites" -> Json.obj(s.rejected.toList.map((k, v) => k -> Json.fromLong(v))*),
          "discarded" -> Json.fromLong(s.count(JobState.Discarded)),
          "tableBytes" -> Json.fromLong(s.table.tableBytes),
          "indexBytes" -> Json.fromLong(s.table.indexBytes),
          "liveTuples" -> Json.fromLong(s.table.liveTuples),
          "deadTuples" -> Json.fromLong(s.table.deadTuples)
        )
        .spaces2
    else
      val t = s.table
      List(
        s"queue ${s.queue.getOrElse("(every queue)")}",
        "  jobs: " + states.map((k, v) => f"$k $v%,d").mkString(", "),
        f"  rate: ${s.completedLastMinute}%,d completed in the last minute (${s.completedLastMinute / 60.0}%,.1f/s)",
        "  oldest available job due: " + s.oldestAvailableSeconds.fold("none")(a =>
          f"$a%.1f s old"
        ),
        f"  expired leases not yet reaped: ${s.expiredLeases}%,d",
        f"  late writes refused: $rejected%,d" + (if s.rejected.isEmpty then ""
                                                  else
                                                    s.rejected.toList.sorted
                                                      .map((k, v) => f"$k $v%,d")
                                                      .mkString(" (", ", ", ")")
        ),
        f"  discarded: ${s.count(JobState.Discarded)}%,d (weir queue retry --list)",
        f"  table $schema.jobs: ${t.tableBytes / 1e6}%,.1f MB, indexes ${t.indexBytes / 1e6}%,.1f MB, ${t.liveTuples}%,d live / ${t.deadTuples}%,d dead tuples"
      ).mkString("\n")

  def discarded(d: Vector[QueueAdmin.Discarded], json: Boolean): String =
    if json then
      Json
        .arr(
          d.map(x =>
            Json.obj(
              "id" -> Json.fromLong(x.id),
              "queue" -> Json.fromString(x.queue),
              "attempt" -> Json.fromInt(x.attempt),
              "errors" -> Json.fromInt(x.errors),
              "lastError" -> x.lastError.fold(Json.Null)(Json.fromString)
            )
          )*
        )
        .spaces2
    else if d.isEmpty then "no discarded jobs"
    else
      d.map(x =>
        s"${x.id}\t${x.queue}\tattempt ${x.attempt}\t${x.lastError.getOrElse("").replace('\n', ' ').take(120)}"
      ).mkString("\n")

  def retried(n: Int, json: Boolean): String =
    if json then Json.obj("retried" -> Json.fromInt(n)).spaces2
    else s"$n discarded job${if n == 1 then "" else "s"} made available again"

  /** `weir queue pause` / `resume`: what changed, and how to undo it. */
  def toggled(queue: String, paused: Boolean, was: Boolean): String =
    (paused, was) match
      case (true, false) =>
        s"queue $queue paused: no worker claims its jobs now; running jobs finish (weir queue resume $queue)"
      case (true, true)   => s"queue $queue was paused already"
      case (false, true)  => s"queue $queue resumed: workers claim its jobs again"
      case (false, false) => s"queue $queue was not paused"

  /** `weir queue cancel`: the jobs cancelled. */
  def cancelled(ids: Vector[Long]): String =
    if ids.isEmpty then "no job cancelled"
    else s"cancelled ${ids.size} job${if ids.size == 1 then "" else "s"}: ${ids.mkString(", ")}"
