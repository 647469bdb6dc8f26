package weir.cli.queue

import io.circe.Json
import java.time.Instant
import weir.postgres.queue.{Schedule, Schedules}

/** `weir queue schedule` and `weir queue schedules` on stdout: text or JSON (circe). */
object ScheduleRender:

  /** The schedule just created or replaced, with its next period as the server's clock sees it. */
  def added(
      s: Schedule,
      replaced: Boolean,
      listed: Option[Schedules.Listed],
      json: Boolean
  ): String =
    val next = listed.flatMap(_.nextDue)
    if json then
      Json
        .obj(
          "schedule" -> one(s),
          "replaced" -> Json.fromBoolean(replaced),
          "nextDue" -> instant(next)
        )
        .spaces2
    else
      val verb = if replaced then "replaced" else "created"
      s"schedule ${s.name} $verb: ${s.spec.show} on queue ${s.queue}, jobs of kind ${s.kind}; next period starts ${shown(next)}"

  /** Every schedule: a table (or a JSON array), by name. */
  def listed(all: Vector[Schedules.Listed], json: Boolean): String =
    if json then
      Json
        .arr(all.map { l =>
          one(l.schedule).deepMerge(
            Json.obj(
              "nextDue" -> instant(l.nextDue),
              "lastPeriod" -> instant(l.lastPeriod),
              "lastJob" -> l.lastJob.fold(Json.Null)(Json.fromLong)
            )
          )
        }*)
        .spaces2
    else if all.isEmpty then
      "no schedules (weir queue schedule NAME --every 1m --payload P adds one)"
    else
      val header = Vector("NAME", "QUEUE", "KIND", "WHEN", "NEXT DUE", "LAST PERIOD ENQUEUED")
      val rows = all.map { l =>
        Vector(
          l.schedule.name,
          l.schedule.queue,
          l.schedule.kind,
          l.schedule.spec.show,
          shown(l.nextDue),
          l.lastPeriod.fold("-")(p => s"${p} (job ${l.lastJob.fold("?")(_.toString)})")
        )
      }
      val table = header +: rows
      val widths = header.indices.map(i => table.map(_(i).length).max)
      table
        .map(r => r.zip(widths).map((c, w) => c.padTo(w, ' ')).mkString("  ").stripTrailing)
        .mkString("\n")

  private def one(s: Schedule): Json =
    val (every, cron) = s.spec match
      case Schedule.Spec.Every(d) => (Json.fromLong(d.toMillis), Json.Null)
      case Schedule.Spec.Cron(c)  => (Json.Null, Json.fromString(c.expression))
    Json.obj(
      "name" -> Json.fromString(s.name),
      "queue" -> Json.fromString(s.queue),
      "kind" -> Json.fromString(s.kind),
      "payload" -> Json.fromString(s.payload),
      "everyMs" -> every,
      "cron" -> cron,
      "priority" -> Json.fromInt(s.priority),
      "maxAttempts" -> Json.fromInt(s.maxAttempts)
    )

  private def instant(i: Option[Instant]): Json =
    i.fold(Json.Null)(t => Json.fromString(t.toString))
  private def shown(i: Option[Instant]): String =
    i.fold("never (the expression does not fire)")(_.toString)
