package weir.postgres.queue.ui

import java.time.Instant
import weir.postgres.queue.ui.UiData.*
import weir.postgres.queue.ui.UiHtml.{button, esc, href, table}

/** The pages' live parts, from what [[UiQueries]] read: pure functions to HTML. Every value from
  * the database goes through [[UiHtml.esc]] (directly, or through [[UiHtml.href]]).
  *
  * @param base
  *   the routes' mount prefix (`""` at the root): every link and form starts with it
  * @param csrf
  *   the session's anti-forgery token, put in every form
  * @param readOnly
  *   no form at all
  * @param back
  *   the page's own address, where an action's answer comes back to
  */
private[ui] final case class UiPages(
    base: String,
    csrf: String,
    readOnly: Boolean,
    back: String,
    now: Instant
):

  private def act(path: String, label: String, fields: (String, String)*): String =
    if readOnly then "" else button(s"$base/$path", label, csrf, back, fields*)

  private def jobLink(id: Long) = s"""<a href="${href(s"$base/jobs/$id")}">$id</a>"""

  private def queueLink(q: String) =
    s"""<a href="${href(s"$base/jobs", "queue" -> Some(q))}">${esc(q)}</a>"""

  /** Per queue: jobs by state, the oldest due, pause, workers; the chart above. */
  def overview(queues: Vector[QueueRow], chart: Chart, minutes: Int, at: Instant): String =
    val rows = queues.map { q =>
      val pause =
        if q.pausedAt.isDefined then act("queue/resume", "Resume", "queue" -> q.name)
        else act("queue/pause", "Pause", "queue" -> q.name)
      val redrive =
        if q.discarded > 0 then act("queue/retry-discarded", "Retry discarded", "queue" -> q.name)
        else ""
      List(
        queueLink(q.name),
        q.pausedAt.fold("running")(t =>
          s"""<span class="paused" title="${esc(UiHtml.time(t))}">paused ${esc(
              UiHtml.ago(t, now)
            )}</span>"""
        ),
        s"""<a href="${href(
            s"$base/jobs",
            "queue" -> Some(q.name),
            "state" -> Some("available")
          )}">${q.availableText}</a>""",
        q.dueText,
        q.oldestDueSeconds.fold("—")(s => esc(UiHtml.seconds(s))),
        s"""<a href="${href(
            s"$base/jobs",
            "queue" -> Some(q.name),
            "state" -> Some("running")
          )}">${q.running}</a>""",
        q.workers.toString,
        s"""<a href="${href(
            s"$base/jobs",
            "queue" -> Some(q.name),
            "state" -> Some("discarded")
          )}">${q.discarded}</a>""",
        q.completedRecently.toString,
        q.failedRecently.toString,
        pause + redrive
      )
    }
    val head = List(
      "queue",
      "state",
      "available",
      "due",
      "oldest due",
      "running",
      "workers",
      "discarded",
      s"completed ($minutes min)",
      s"failed ($minutes min)",
      if readOnly then "" else "actions"
    )
    val list =
      if queues.isEmpty then
        """<p class="muted">No queue has live jobs, discarded ones or recent activity yet.</p>"""
      else table(head, rows, Set(2, 3, 4, 5, 6, 7, 8, 9))
    val counted =
      s"""<p class="muted" id="counted-at">Counted at ${esc(
          UiHtml.time(at)
        )}; running jobs and workers as of each worker's latest heartbeat (workers silent for a minute are left out).</p>"""
    UiChart.svg(chart, minutes) + "\n" + list + "\n" + counted

  /** The filter form of the jobs list (outside the live part, so that a refresh keeps what is
    * typed).
    */
  def filters(queue: Option[String], state: Option[String], kind: Option[String]): String =
    val options = ("" :: states).map { s =>
      val sel =
        if state.contains(s) || (s.isEmpty && state.isEmpty) then " selected=\"selected\"" else ""
      s"""<option value="${esc(s)}"$sel>${if s.isEmpty then "any" else esc(s)}</option>"""
    }.mkString
    s"""<form method="get" action="${esc(s"$base/jobs")}" class="filters">
       |<label>queue <input name="queue" value="${esc(queue.getOrElse(""))}" /></label>
       |<label>state <select name="state">$options</select></label>
       |<label>kind <input name="kind" value="${esc(kind.getOrElse(""))}" /></label>
       |<button type="submit">Filter</button></form>""".stripMargin

  /** A page of jobs, newest first; `more` when older ones follow (the link goes on from the last).
    */
  def jobs(
      rows: Vector[JobRow],
      more: Boolean,
      queue: Option[String],
      state: Option[String],
      kind: Option[String],
      before: Option[Long]
  ): String =
    val list = rows.map { j =>
      List(
        jobLink(j.id),
        queueLink(j.queue),
        esc(j.kind),
        esc(j.state),
        s"${j.attempt}/${j.maxAttempts}",
        esc(UiHtml.ago(j.runAt, now)),
        j.errors.toString,
        j.lastError.fold("")(e => s"""<span class="err">${esc(e)}</span>"""),
        s"""<code>${esc(j.payload)}</code>""",
        jobActions(j.id, j.state)
      )
    }
    val head = List(
      "id",
      "queue",
      "kind",
      "state",
      "attempt",
      "run at",
      "errors",
      "last error",
      "payload",
      ""
    )
    val redrive = (state, queue) match
      case (Some("discarded"), Some(q)) if rows.nonEmpty =>
        s"<p>${act("queue/retry-discarded", s"Retry every discarded job of $q", "queue" -> q)}</p>"
      case _ => ""
    val params = List("queue" -> queue, "state" -> state, "kind" -> kind)
    val older =
      if more then
        s"""<a href="${href(
            s"$base/jobs",
            (params :+ ("before" -> rows.lastOption.map(_.id.toString)))*
          )}" rel="next">Older jobs →</a>"""
      else ""
    val newest =
      if before.isDefined then s"""<a href="${href(s"$base/jobs", params*)}">← Newest</a> """
      else ""
    val body =
      if rows.isEmpty then """<p class="muted">No job matches.</p>"""
      else table(head, list, Set(4, 6))
    s"$redrive\n$body\n<p class=\"pages\">$newest$older</p>"

  private def jobActions(id: Long, state: String): String =
    val retry =
      if Set("available", "discarded", "cancelled")(state) then act(s"jobs/$id/retry", "Retry")
      else ""
    val cancel =
      if Set("available", "running", "discarded")(state) then act(s"jobs/$id/cancel", "Cancel")
      else ""
    val delete = if state != "running" then act(s"jobs/$id/delete", "Delete") else ""
    retry + cancel + delete

  /** One job: every column, the payload and the latest error in full, the actions its state allows.
    */
  def job(j: JobDetail): String =
    def at(t: Option[Instant]) =
      t.fold("—")(t =>
        s"${esc(UiHtml.time(t))} <span class=\"muted\">(${esc(UiHtml.ago(t, now))})</span>"
      )
    val fields = List(
      "queue" -> queueLink(j.queue),
      "kind" -> esc(j.kind),
      "state" -> s"""<strong id="job-state">${esc(j.state)}</strong>""",
      "attempt" -> s"${j.attempt} of ${j.maxAttempts}",
      "priority" -> j.priority.toString,
      "errors" -> j.errors.toString,
      "worker" -> j.worker.fold("—")(w => s"""<span class="mono">${esc(w)}</span>"""),
      "unique key" -> j.uniqueKey.fold("—")(esc),
      "timeout" -> j.timeoutMs.fold("—")(ms => s"$ms ms"),
      "created" -> at(Some(j.createdAt)),
      "run at" -> at(Some(j.runAt)),
      "last attempt started" -> at(j.attemptedAt),
      "lease until" -> at(j.leaseUntil),
      "last failure" -> at(j.failedAt),
      "finished" -> at(j.finishedAt)
    ).map((k, v) => s"<dt>${esc(k)}</dt><dd>$v</dd>").mkString("\n")
    val latest = j.lastError.fold("""<p class="muted">No error.</p>""")(e =>
      s"""<p class="muted">The latest of ${j.errors} error(s), at ${j.failedAt.fold("?")(t =>
          esc(UiHtml.time(t))
        )}:</p><pre id="job-error">${esc(e)}</pre>"""
    )
    val error = latest + errorHistory(j)
    val actions = jobActions(j.id, j.state)
    s"""<dl class="job">
       |$fields
       |</dl>
       |${if actions.isEmpty then "" else s"<p>$actions</p>"}
       |<h3>Payload</h3>
       |<pre id="job-payload">${esc(j.payload)}</pre>
       |<h3>Errors</h3>
       |$error""".stripMargin

  // Every failed attempt the job's error_history keeps (the latest 25), newest first; a note when
  // it holds fewer than the job's error count (failures before migration 0010, or past 25).
  private def errorHistory(j: JobDetail): String =
    if j.history.isEmpty then ""
    else
      val rows = j.history.map(e =>
        List(
          e.attempt.toString,
          s"${esc(UiHtml.time(e.at))} <span class=\"muted\">(${esc(UiHtml.ago(e.at, now))})</span>",
          e.worker.fold("—")(w => s"""<span class="mono">${esc(w)}</span>"""),
          s"""<pre class="err">${esc(e.error)}</pre>"""
        )
      )
      val missing = j.errors - j.history.size
      val note =
        if missing <= 0 then ""
        else
          s"""<p class="muted">$missing earlier error(s) not kept (before migration 0010, or past the latest 25).</p>"""
      s"""<h3>Every attempt that failed</h3>
         |<div id="job-history">${table(
          List("attempt", "at", "worker", "error"),
          rows,
          Set(0)
        )}</div>
         |$note""".stripMargin

  /** The workers: queues, start, last heartbeat (its age marked once over a minute: stopped without
    * deleting its row, or cut off), what each holds, its rate over the last minute and its totals.
    */
  def workers(rows: Vector[WorkerRow]): String =
    val list = rows.map { w =>
      val beat = w.beatAt.fold("—") { t =>
        val age = esc(UiHtml.ago(t, now))
        if java.time.Duration.between(t, now).getSeconds > 60 then
          s"""<span class="err">$age</span>"""
        else age
      }
      List(
        s"""<span class="mono">${esc(w.worker)}</span>""",
        w.queues.map(esc).mkString(", "),
        w.startedAt.fold("—")(t => esc(UiHtml.ago(t, now))),
        beat,
        w.holding.toString,
        w.jobs.map(jobLink).mkString(" ") + (if w.holding > w.jobs.size then " …" else ""),
        w.oldestClaim.fold("—")(t => esc(UiHtml.ago(t, now))),
        f"${w.completedLastMinute / 60.0}%.2f",
        w.completedTotal.fold("—")(_.toString),
        w.failedTotal.fold("—")(_.toString)
      )
    }
    val head = List(
      "worker",
      "queues",
      "started",
      "last heartbeat",
      "holding",
      "jobs held",
      "oldest claim",
      "completed/s (last min)",
      "completed",
      "failed"
    )
    val note =
      """<p class="muted">Each worker writes its row at every heartbeat and deletes it when it stops; a worker of a version before migration 0011 is seen only through the jobs it holds or completed in the last minute.</p>"""
    if rows.isEmpty then note + """<p class="muted">No worker is running.</p>"""
    else note + table(head, list, Set(4, 7, 8, 9))

  /** Every schedule: its queue, kind, period, the latest period enqueued. */
  def schedules(rows: Vector[ScheduleRow]): String =
    val list = rows.map { s =>
      List(
        esc(s.name),
        queueLink(s.queue),
        esc(s.kind),
        s.cron.fold(s.everyMs.fold("—")(ms => s"every ${esc(UiHtml.seconds(ms / 1000.0))}"))(c =>
          s"cron <code>${esc(c)}</code>"
        ),
        s.lastPeriod.fold("never")(t => esc(UiHtml.time(t))),
        esc(UiHtml.time(s.updatedAt)),
        s"<code>${esc(s.payload)}</code>"
      )
    }
    if rows.isEmpty then """<p class="muted">No schedule.</p>"""
    else
      table(
        List("name", "queue", "kind", "period", "latest period enqueued", "set", "payload"),
        list
      )
