package weir.cli.queue

import io.circe.Json

/** The result of `weir queue torture`: every invariant, checked or not, text or JSON (circe). */
object TortureRender:

  def apply(r: Torture.Report, json: Boolean): String =
    val recoveries = r.recoveryMillis.flatten.sorted
    def pct(p: Double) =
      if recoveries.isEmpty then 0L else recoveries(((recoveries.size - 1) * p).round.toInt)
    if json then
      Json
        .obj(
          "passed" -> Json.fromBoolean(r.passed),
          "queue" -> Json.fromString(r.queue),
          "workers" -> Json.fromInt(r.workers),
          "jobs" -> Json.fromLong(r.jobs),
          "seconds" -> Json.fromDoubleOrNull(r.seconds),
          "finished" -> Json.fromBoolean(r.finished),
          "kills" -> Json.fromInt(r.kills.size),
          "heldAtKills" -> Json.arr(r.kills.map(Json.fromInt)*),
          "heldWhenPaused" -> Json.arr(r.paused.map(Json.fromInt)*),
          "recoveryMillis" -> Json.arr(r.recoveryMillis.map(_.fold(Json.Null)(Json.fromLong))*),
          "lost" -> Json.fromLong(r.lost),
          "completedWithoutARunOfTheirAttempt" -> Json.fromLong(r.completedWithoutRun),
          "runs" -> Json.fromLong(r.runs),
          "duplicates" -> Json.fromLong(r.duplicates),
          "duplicateBound" -> Json.fromLong(r.bound),
          "refusedLateWrites" -> Json.fromLong(r.refusedLateWrites),
          "workerExitCodes" -> Json.arr(r.exitCodes.map(Json.fromInt)*),
          "seed" -> Json.fromLong(r.seed),
          "log" -> Json.fromString(r.log)
        )
        .spaces2
    else
      def mark(ok: Boolean) = if ok then "ok  " else "FAIL"
      List(
        f"weir queue torture: ${r.jobs}%,d jobs, ${r.workers} worker processes, ${r.kills.size} SIGKILLs, ${r.paused.size} SIGSTOP past the lease, ${r.seconds}%.1f s (seed ${r.seed})",
        s"  ${mark(r.finished)} every job completed before the limit",
        f"  ${mark(r.lost == 0)} no job lost: ${r.lost}%,d unfinished",
        f"  ${mark(r.completedWithoutRun == 0)} every completion under the job's current attempt, an attempt that ran: ${r.completedWithoutRun}%,d otherwise; ${r.refusedLateWrites}%,d late writes refused",
        f"  ${mark(r.duplicates <= r.bound)} duplicate runs ${r.duplicates}%,d <= ${r.bound}%,d jobs held by the killed and paused workers (${r.runs}%,d runs of ${r.jobs}%,d jobs)",
        s"  held at each kill: ${r.kills.mkString(" ")}; held when paused: ${r.paused.mkString(" ")}",
        s"  recovery after each kill (until its jobs ran again elsewhere): p50 ${pct(0.5)} ms, max ${pct(1.0)} ms" +
          (if r.recoveryMillis.exists(_.isEmpty) then
             s" (${r.recoveryMillis.count(_.isEmpty)} not recovered)"
           else ""),
        s"  workers' log: ${r.log}",
        if r.passed then "PASSED" else "FAILED"
      ).mkString("\n")
