package weir.postgres.queue

import java.sql.{Connection, ResultSet, Timestamp}
import java.time.Instant
import weir.{Attempts, PositiveDuration}
import weir.postgres.PgSession

/** Periodic jobs, kept in `weir.schedules` (migrations `0006_weir_schedules.sql`, and
  * `0007_weir_reliability.sql` for the kind of their jobs): adding, listing and removing
  * [[Schedule]]s, on the caller's [[PgSession]] (in its transaction, if it has one).
  *
  * '''Who enqueues.''' Every [[Worker]] runs a scheduler beside its run, on its upkeep connection
  * (whatever queue it works): it reads the schedules at most every 5 s and, at each period's start,
  * calls `weir.enqueue_period(name, period_start)` (`weir` here and below: the queue's schema,
  * [[QueueSchemaName]], an argument of each call). That function locks the schedule's row and
  * records the period in the same transaction as its job, so however many workers are due at the
  * same period, exactly one job is inserted, with no leader to elect. A period is enqueued only
  * once it has started by the server's clock, and only if it starts at or after the schedule was
  * created or last replaced: a new schedule does not enqueue the periods (or the current period)
  * before it; periods missed while no worker ran are skipped, the current one enqueued at the next
  * tick of any worker. A worker that was running but late (its call waited on a lock, its process
  * was starved) enqueues, in order, the periods that started since its previous pass. A worker
  * picks up a schedule added or changed within about 5 s.
  *
  * '''Errors.''' Driver errors are raised as `SQLException`s; nothing is retried here.
  */
object Schedules:

  /** A schedule as stored: with the latest period enqueued (its start and its job, `None` before
    * the first), and the start of the next period after the server's `now` when it was listed.
    */
  final case class Listed(
      schedule: Schedule,
      lastPeriod: Option[Instant],
      lastJob: Option[Long],
      nextDue: Option[Instant],
      now: Instant
  )

  /** Creates `schedule`, or replaces the one of the same name; `true` when it replaced one. A
    * replaced schedule keeps its last period (a period is never enqueued twice) and enqueues only
    * periods that start from now on.
    */
  def add[F[_]](
      session: PgSession[F],
      schedule: Schedule,
      schema: QueueSchemaName = QueueSchemaName.default
  ): F[Boolean] =
    session.withConnection { c =>
      val (every, cron) = columns(schedule.spec)
      Jdbc.prepared(
        c,
        s"""INSERT INTO $schema.schedules AS s
          |       (name, queue, payload, every_ms, cron, priority, max_attempts, kind)
          |VALUES (?, ?, ?, ?, ?, ?, ?, ?)
          |ON CONFLICT (name) DO UPDATE
          |  SET queue = excluded.queue, payload = excluded.payload, every_ms = excluded.every_ms,
          |      cron = excluded.cron, priority = excluded.priority,
          |      max_attempts = excluded.max_attempts, kind = excluded.kind, updated_at = now()
          |RETURNING (s.xmax <> 0)""".stripMargin
      ) { s =>
        s.setString(1, schedule.name)
        s.setString(2, schedule.queue)
        s.setString(3, schedule.payload)
        every.fold(s.setNull(4, java.sql.Types.BIGINT))(ms => s.setLong(4, ms))
        s.setString(5, cron.orNull)
        s.setShort(6, schedule.priority.toShort)
        s.setInt(7, schedule.maxAttempts)
        s.setString(8, schedule.kind)
        Jdbc.rows(s)(_.getBoolean(1)).head
      }
    }

  /** Removes the schedule `name` and its record of periods (its jobs stay); `false` when there was
    * none. A worker may still enqueue one last period of it until it reads the schedules again (at
    * most 5 s); never after that.
    */
  def remove[F[_]](
      session: PgSession[F],
      name: String,
      schema: QueueSchemaName = QueueSchemaName.default
  ): F[Boolean] =
    session.withConnection { c =>
      Jdbc.prepared(c, s"DELETE FROM $schema.schedules WHERE name = ?") { s =>
        s.setString(1, name)
        s.executeUpdate() > 0
      }
    }

  /** Every schedule, by name. A row written by hand whose cron expression does not parse is left
    * out (workers never enqueue it either).
    */
  def list[F[_]](session: PgSession[F]): F[Vector[Listed]] = list(session, QueueSchemaName.default)

  /** [[list]] for the queue in `schema`. */
  def list[F[_]](session: PgSession[F], schema: QueueSchemaName): F[Vector[Listed]] =
    session.withConnection { c =>
      Jdbc.prepared(
        c,
        s"""SELECT $selected, p.job_id, now() FROM $schema.schedules s
           |  LEFT JOIN $schema.schedule_periods p
           |    ON p.name = s.name AND p.period_start = s.last_period
           | ORDER BY s.name""".stripMargin
      ) { s =>
        Jdbc
          .rows(s) { r =>
            val now = r.getTimestamp(12).toInstant
            stored(r).map { row =>
              val job = Option(r.getObject(11)).map(_ => r.getLong(11))
              Listed(row.schedule, row.lastPeriod, job, row.schedule.spec.next(now), now)
            }
          }
          .flatten
      }
    }

  /** A stored schedule as the scheduler reads it: when periods count from, the last one enqueued.
    */
  private[queue] final case class Stored(
      schedule: Schedule,
      since: Instant,
      lastPeriod: Option[Instant]
  )

  /** The columns [[stored]] reads, `s` being `weir.schedules`. */
  private[queue] val selected: String =
    "s.name, s.queue, s.payload, s.every_ms, s.cron, s.priority, s.max_attempts, s.updated_at, s.last_period, s.kind"

  /** What changes whenever a schedule is added, replaced or removed: how many there are and the
    * latest creation or replacement (not the periods enqueued).
    */
  private[queue] final case class Version(count: Long, latest: Option[Instant])

  /** The schedules' [[Version]], with the server's clock then. */
  private[queue] def version(c: Connection, schema: QueueSchemaName): (Instant, Version) =
    Jdbc.prepared(c, s"SELECT now(), count(*), max(updated_at) FROM $schema.schedules") { s =>
      Jdbc
        .rows(s)(r =>
          (
            r.getTimestamp(1).toInstant,
            Version(r.getLong(2), Option(r.getTimestamp(3)).map(_.toInstant))
          )
        )
        .head
    }

  /** Every schedule, with the server's clock then (see [[Stored]]). */
  private[queue] def read(c: Connection, schema: QueueSchemaName): (Instant, Vector[Stored]) =
    Jdbc.prepared(c, s"SELECT $selected, now() FROM $schema.schedules s") { s =>
      val rows = Jdbc.rows(s)(r => (stored(r), r.getTimestamp(11).toInstant))
      val now = rows.headOption.fold(serverNow(c))(_._2)
      (now, rows.flatMap(_._1))
    }

  private def serverNow(c: Connection): Instant =
    Jdbc.prepared(c, "SELECT now()")(s => Jdbc.rows(s)(_.getTimestamp(1).toInstant).head)

  // The columns of `selected`, in order; None when the spec does not parse (a row written by hand).
  private def stored(r: ResultSet): Option[Stored] =
    val spec =
      Option(r.getObject(4)).map(_ => r.getLong(4)) match
        case Some(ms) => PositiveDuration.from(ms.millis).toOption.map(Schedule.Spec.Every(_))
        case None     => Cron.parse(r.getString(5)).toOption.map(Schedule.Spec.Cron(_))
    for
      sp <- spec
      base <- Schedule.of(r.getString(1), sp, r.getString(3)).toOption
      queued <- base.withQueue(r.getString(2)).toOption
      prioritised <- queued.withPriority(r.getInt(6)).toOption
      kinded <- prioritised.withKind(r.getString(10)).toOption
      attempts <- Attempts.from(r.getInt(7)).toOption
    yield Stored(
      kinded.withMaxAttempts(attempts),
      r.getTimestamp(8).toInstant,
      Option(r.getTimestamp(9)).map((t: Timestamp) => t.toInstant)
    )

  private def columns(spec: Schedule.Spec): (Option[Long], Option[String]) = spec match
    case Schedule.Spec.Every(d) => (Some(d.toMillis), None)
    case Schedule.Spec.Cron(c)  => (None, Some(c.expression))

  extension (ms: Long) private def millis = scala.concurrent.duration.FiniteDuration(ms, "ms")
