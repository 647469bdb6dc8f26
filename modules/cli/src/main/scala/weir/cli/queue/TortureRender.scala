package weir.cli.queue

import io.circe.Json

/** The result of `weir queue torture`: every invariant, checked or not, over the whole run and for
  * the kills of each phase; text or JSON (circe).
  */
object TortureRender:

  def apply(r: TortureReport, json: Boolean): String =
    if json then asJson(r).spaces2 else asText(r)

  private def percentile(sorted: Vector[Long], p: Double): Long =
    if sorted.isEmpty then 0L else sorted(((sorted.size - 1) * p).round.toInt)

  private def asJson(r: TortureReport): Json =
    Json.obj(
      "passed" -> Json.fromBoolean(r.passed),
      "queue" -> Json.fromString(r.queue),
      "workers" -> Json.fromInt(r.workers),
      "jobs" -> Json.fromLong(r.jobs),
      "seconds" -> Json.fromDoubleOrNull(r.seconds),
      "finished" -> Json.fromBoolean(r.finished),
      "interrupted" -> Json.fromBoolean(r.interrupted),
      "lost" -> Json.fromLong(r.lost),
      "completedWithoutARunOfTheirAttempt" -> Json.fromLong(r.completedWithoutRun),
      "runs" -> Json.fromLong(r.runs),
      "duplicates" -> Json.fromLong(r.duplicates),
      "duplicateBound" -> Json.fromLong(r.bound),
      "refusedLateWrites" -> Json.fromLong(r.refusedLateWrites),
      "mix" -> Json.obj(
        "holds" -> Json.fromBoolean(r.mix.holds),
        "kinds" -> Json.arr(
          r.mix.kinds.map(k =>
            Json.obj(
              "kind" -> Json.fromString(k.kind),
              "jobs" -> Json.fromLong(k.jobs),
              "completed" -> Json.fromLong(k.completed),
              "cancelled" -> Json.fromLong(k.cancelled)
            )
          )*
        ),
        "cancels" -> Json.fromInt(r.mix.cancels),
        "cancelledAsIntended" -> Json.fromBoolean(r.mix.cancelledAsIntended),
        "scheduleEveryMillis" -> Json.fromLong(r.mix.everyMillis),
        "periods" -> Json.fromInt(r.mix.periods),
        "periodsSkipped" -> Json.fromLong(r.mix.skipped),
        "periodsMissing" -> Json.arr(r.mix.missing.map(Json.fromString)*),
        "periodsDoubled" -> Json.fromLong(r.mix.doubled),
        "scheduledJobsWithoutPeriod" -> Json.fromLong(r.mix.withoutPeriod)
      ),
      "phases" -> Json.arr(
        r.phases.map(p =>
          Json.obj(
            "phase" -> Json.fromString(p.name),
            "holds" -> Json.fromBoolean(p.holds),
            "kills" -> Json.fromInt(p.kills),
            "hits" -> Json.fromInt(p.hits),
            "held" -> Json.fromLong(p.held),
            "duplicateBound" -> Json.fromLong(p.bound),
            "lost" -> Json.fromLong(p.lost),
            "completedWithoutARunOfTheirAttempt" -> Json.fromLong(p.completedWithoutRun),
            "duplicates" -> Json.fromLong(p.duplicates),
            "recoveryMillis" -> Json.arr(p.recoveryMillis.map(Json.fromLong)*),
            "notRecovered" -> Json.fromInt(p.notRecovered)
          )
        )*
      ),
      "kills" -> Json.arr(
        r.kills.map(k =>
          Json.obj(
            "k" -> Json.fromInt(k.k),
            "aimedAt" -> Json.fromString(k.aimed.fold("pause")(_.label)),
            "hit" -> Json.fromBoolean(k.hit),
            "held" -> Json.fromInt(k.held),
            "recoveryMillis" -> k.recoveryMillis.fold(Json.Null)(Json.fromLong)
          )
        )*
      ),
      "workerExitCodes" -> Json.arr(r.exitCodes.map(Json.fromInt)*),
      "seed" -> Json.fromLong(r.seed),
      "log" -> Json.fromString(r.log)
    )

  private def mark(ok: Boolean) = if ok then "ok  " else "FAIL"

  private def asText(r: TortureReport): String =
    val kills = r.kills.count(_.aimed.isDefined)
    val paused = r.kills.size - kills
    val phases = r.phases.filter(_.kills > 0).map { p =>
      val recovery =
        if p.recoveryMillis.isEmpty then "-"
        else
          s"${percentile(p.recoveryMillis, 0.5)} / ${p.recoveryMillis.last} ms" +
            (if p.notRecovered > 0 then s" (${p.notRecovered} not)" else "")
      val hits = if p.name == "paused" then "-" else p.hits.toString
      f"  ${mark(p.holds)} ${p.name}%-10s ${p.kills}%5d ${hits}%4s ${p.held}%6d ${p.lost}%5d ${p.completedWithoutRun}%11d ${s"${p.duplicates} <= ${p.bound}"}%17s  $recovery"
    }
    val all = r.kills.flatMap(_.recoveryMillis).sorted
    (List(
      f"weir queue torture: ${r.jobs}%,d jobs, ${r.workers} worker processes, $kills SIGKILLs aimed in turn at claiming, handling, completing, $paused SIGSTOP past the lease, ${r.seconds}%.1f s (seed ${r.seed})",
      if r.interrupted then
        s"  FAIL interrupted (Ctrl-C): the run stopped before its jobs were done; what follows is what it had reached"
      else s"  ${mark(r.finished)} every job completed before the limit",
      if r.interrupted then
        f"  -    ${r.lost}%,d jobs unfinished when it stopped (not a loss: the queue ${r.queue} keeps them)"
      else f"  ${mark(r.lost == 0)} no job lost: ${r.lost}%,d unfinished",
      f"  ${mark(r.completedWithoutRun == 0)} every completion under the job's current attempt, an attempt that ran: ${r.completedWithoutRun}%,d otherwise; ${r.refusedLateWrites}%,d late writes refused",
      f"  ${mark(r.duplicates <= r.bound)} duplicate runs ${r.duplicates}%,d <= ${r.bound}%,d jobs held by the killed and paused workers (${r.runs}%,d runs of ${r.jobs}%,d jobs)",
      s"  ${mark(r.mix.kinds.forall(_.holds))} every job of each kind completed or cancelled: " +
        r.mix.kinds.map(k => s"${k.kind} ${k.completed}+${k.cancelled}/${k.jobs}").mkString(", "),
      s"  ${mark(r.mix.cancelledAsIntended)} cancelled: exactly the ${r.mix.cancels} running jobs cancelled during the run",
      s"  ${mark(r.mix.skipped == 0 && r.mix.doubled == 0 && r.mix.withoutPeriod == 0)} schedule every ${r.mix.everyMillis / 1000} s: ${r.mix.periods} periods, ${r.mix.skipped} skipped, ${r.mix.doubled} doubled, ${r.mix.withoutPeriod} jobs without a period" +
        (if r.mix.missing.isEmpty then "" else r.mix.missing.mkString(" (missing: ", ", ", ")")),
      s"  recovery after each kill (until its jobs ran again elsewhere): p50 ${percentile(all, 0.5)} ms, max ${percentile(all, 1.0)} ms" +
        (if r.kills.exists(_.recoveryMillis.isEmpty) then
           s" (${r.kills.count(_.recoveryMillis.isEmpty)} not recovered)"
         else ""),
      "  by phase (hits: kills the server saw land in the phase; held: jobs the victims held; of those: lost, completed without a run of their attempt, extra runs, within how many times they were held at any kill):",
      "       phase      kills hits   held  lost  done-unrun duplicates<=bound  recovery p50 / max"
    ) ++ phases ++ List(
      s"  workers' log: ${r.log}",
      if r.passed then "PASSED" else "FAILED"
    )).mkString("\n")
