package weir.cli.queue

import io.circe.Json
import weir.Durations
import weir.http.WarmUp
import weir.postgres.queue.Worker

/** The summary of a `weir worker` run: text or JSON (circe). */
object WorkerRender:

  /** `warm`: what `--http`'s client warm-up did before the first claim (not part of the run);
    * `causes`: why attempts failed ([[WorkerFailures]]).
    */
  def apply(
      plan: WorkerPlan,
      r: Worker.Report,
      interrupted: Boolean,
      warm: Option[WarmUp] = None,
      causes: List[WorkerFailures.Cause] = Nil
  ): String =
    val c = r.counts
    val w = c.written
    val seconds = math.max(1e-9, r.engine.elapsed.toNanos / 1e9)
    val rate = w.completed / seconds
    if plan.json then
      Json
        .obj(
          "worker" -> Json.fromString(r.worker),
          "queue" -> Json.fromString(queues(plan)),
          "queues" -> Json.fromValues(plan.queue.queues.toList.map(Json.fromString)),
          "claimedByQueue" -> Json.fromFields(
            plan.queue.queues.toList.map(q => q -> Json.fromLong(c.claimedByQueue.getOrElse(q, 0L)))
          ),
          "handler" -> Json.fromString(plan.handler.label),
          "seconds" -> Json.fromDoubleOrNull(seconds),
          "completed" -> Json.fromInt(w.completed),
          "completedPerSecond" -> Json.fromDoubleOrNull(rate),
          "retried" -> Json.fromInt(w.retried),
          "discarded" -> Json.fromInt(w.discarded),
          "rejectedLateWrites" -> Json.fromInt(w.rejected),
          "failedAttemptsByCause" -> Json.fromFields(
            causes.map(c => c.label -> Json.fromLong(c.attempts))
          ),
          "claims" -> Json.fromLong(c.claims),
          "claimedJobs" -> Json.fromLong(c.claimedJobs),
          "leasesLost" -> Json.fromLong(c.lostLeases),
          "expiredLeasesReaped" -> Json.fromLong(c.reapedAvailable + c.reapedDiscarded),
          "sweptFinished" -> Json.fromLong(c.swept),
          "releasedAtStop" -> Json.fromLong(c.releasedAtStop),
          "lostConnections" -> Json.fromLong(r.lostConnections),
          "latencyP50Ms" -> Json.fromDoubleOrNull(r.engine.latency.p50.toNanos / 1e6),
          "latencyP99Ms" -> Json.fromDoubleOrNull(r.engine.latency.p99.toNanos / 1e6),
          "interrupted" -> Json.fromBoolean(interrupted),
          "warmUpRequests" -> Json.fromLong(warm.fold(0L)(_.requests)),
          "warmUpSeconds" -> Json.fromDoubleOrNull(warm.fold(0.0)(_.elapsed.toNanos / 1e9))
        )
        .spaces2
    else
      val l = r.engine.latency
      List(
        s"weir worker ${r.worker}, ${queueWord(plan)} ${queues(plan)}, handler ${plan.handler.label}${if interrupted then " (stopped by Ctrl-C)" else ""}",
        f"  ${w.completed}%,d jobs completed in $seconds%.2f s: $rate%,.0f jobs/s",
        f"  ${w.retried}%,d attempts failed and retried, ${w.discarded}%,d jobs discarded, ${w.rejected}%,d late writes refused",
        f"  ${c.claimedJobs}%,d jobs claimed in ${c.claims}%,d claims; ${c.releasedAtStop}%,d released at stop; ${c.lostLeases}%,d leases lost; ${c.reapedAvailable + c.reapedDiscarded}%,d expired leases reaped; ${r.lostConnections}%,d connections lost",
        s"  handler latency: p50 ${Durations.show(l.p50)}  p99 ${Durations.show(l.p99)}  max ${Durations.show(l.max)}"
      ).++(causesLine(causes))
        .++(byQueue(plan, c).map(line => s"  jobs claimed by queue: $line"))
        .++(warm.map(warmUpLine))
        .mkString("\n")

  // Why attempts failed, the most frequent cause first, each with one of its messages.
  private def causesLine(causes: List[WorkerFailures.Cause]): Option[String] =
    Option.when(causes.nonEmpty)(
      causes
        .map(c => f"${c.label} ${c.attempts}%,d (${c.example.take(160)})")
        .mkString("  failed attempts by cause: ", "; ", "")
    )

  private def warmUpLine(w: WarmUp): String =
    val took = w.elapsed.toNanos / 1e9
    w.problem.fold(
      f"  client warm-up, before the first claim (not counted): ${w.requests}%,d requests to weir's own server in $took%.2f s"
    )(why => s"  client warm-up skipped: $why")

  /** The worker's queues as one label: `mail` or `mail,sms`. */
  def queues(plan: WorkerPlan): String = plan.queue.queues.toList.mkString(",")

  private def queueWord(plan: WorkerPlan): String =
    if plan.queue.queues.size > 1 then "queues" else "queue"

  /** With several queues, the jobs claimed from each (`mail 1,200, sms 300`); nothing with one. */
  def byQueue(plan: WorkerPlan, c: Worker.Counts): Option[String] =
    Option.when(plan.queue.queues.size > 1)(
      plan.queue.queues.toList
        .map(q => f"$q ${c.claimedByQueue.getOrElse(q, 0L)}%,d")
        .mkString(", ")
    )
