package weir.cli.queue

import cats.data.{NonEmptyList, Validated}
import cats.effect.{ExitCode, IO}
import cats.syntax.all.*
import com.monovore.decline.Opts
import weir.{Attempts, PositiveDuration}
import weir.cli.common.{Args, Console, Exit}
import weir.postgres.PgTarget
import weir.postgres.queue.{QueueSchemaName, Schedule, Schedules}

/** `weir queue schedule | schedules | unschedule`: periodic jobs ([[Schedules]]), created or
  * replaced, listed, removed. Exit 0 done; 1 removing a schedule that does not exist (or a
  * statement that failed); 2 bad options or no database (as the other queue commands).
  */
object ScheduleCommand:

  private val every: Opts[Schedule.Spec] =
    Opts
      .option[String](
        "every",
        "A job every DURATION (250ms, 30s, 5m, 1h), periods aligned to the epoch in UTC.",
        metavar = "DURATION"
      )
      .mapValidated(text =>
        Args.parseDuration("every", text).andThen { d =>
          PositiveDuration
            .from(d, "interval")
            .map(Schedule.Spec.Every(_))
            .leftMap(Args.worded("every", _))
            .toValidatedNel
        }
      )

  private val cron: Opts[Schedule.Spec] =
    Opts
      .option[String](
        "cron",
        "A job at each fire time of a 5-field cron expression in UTC: minute hour day-of-month month day-of-week (e.g. \"0 3 * * *\", \"*/15 9-17 * * MON-FRI\", @hourly).",
        metavar = "EXPR"
      )
      .mapValidated(text =>
        weir.postgres.queue.Cron
          .parse(text)
          .map(Schedule.Spec.Cron(_))
          .leftMap(e => s"--cron: ${e.getMessage}")
          .toValidatedNel
      )

  // Exactly one of --every and --cron.
  private val when: Opts[Schedule.Spec] =
    (every.orNone, cron.orNone).tupled.mapValidated {
      case (Some(e), None)    => e.validNel
      case (None, Some(c))    => c.validNel
      case (Some(_), Some(_)) => "give --every or --cron, not both".invalidNel
      case (None, None)       => "--every DURATION or --cron EXPR is required".invalidNel
    }

  private val schedule = Opts.subcommand(
    "schedule",
    """Create a periodic job, or replace the one of the same NAME: every period of --every or --cron, one job of --kind with --payload goes into --queue, however many workers run (every weir worker runs the scheduler; no leader). A new or replaced schedule enqueues periods that start from now on; periods missed while no worker ran are skipped. Workers pick up a change within 5 s.
      |
      |Examples:
      |  weir queue schedule nightly-report --queue reports --cron "0 3 * * *" --payload '{"report":"daily"}'
      |  weir queue schedule heartbeat --every 30s --payload ping
      |  weir queue schedule cleanup --every 1h --kind purge --payload '{"days":30}'
      |  weir queue schedules
      |  weir queue unschedule heartbeat""".stripMargin
  )(
    (
      QueueArgs.target(sys.env),
      QueueArgs.schema,
      Opts.argument[String]("NAME"),
      QueueArgs.queue,
      when,
      Opts.option[String](
        "payload",
        "The payload of each job (any text; JSON is kept as its text).",
        metavar = "TEXT"
      ),
      Args.int("priority", "The jobs' priority (lower runs first). Default: 0.").orNone,
      Args.positiveInt("attempts", "Attempts each job gets before it is discarded.", 25),
      QueueArgs.kind,
      QueueArgs.json
    ).tupled
      .mapValidated {
        case (target, schema, name, queue, spec, payload, priority, attempts, k, json) =>
          val made = for
            s <- Schedule.of(name.trim, spec, payload)
            kinded <- s.withKind(k)
            q <- kinded.withQueue(queue)
            p <- priority.fold(Right(q))(q.withPriority)
            n <- Attempts.from(attempts)
          yield p.withMaxAttempts(n)
          Validated
            .fromEither(made.leftMap(e => NonEmptyList.one(e.getMessage)))
            .map(s => (target, s, json, schema))
      }
      .map(add)
  )

  private val schedules = Opts.subcommand(
    "schedules",
    """List the periodic jobs: name, queue, kind, every/cron, the next period's start and the last period enqueued (with its job's id), all in UTC.
      |
      |Example:
      |  weir queue schedules --format json""".stripMargin
  )((QueueArgs.target(sys.env), QueueArgs.json, QueueArgs.schema).mapN(list))

  private val unschedule = Opts.subcommand(
    "unschedule",
    """Remove the periodic job NAME (its jobs already enqueued stay). Removing one that does not exist says so and exits 1.
      |
      |Example:
      |  weir queue unschedule nightly-report""".stripMargin
  )((QueueArgs.target(sys.env), Opts.argument[String]("NAME"), QueueArgs.schema).mapN(remove))

  /** The three subcommands. */
  val opts: Opts[IO[ExitCode]] = schedule orElse schedules orElse unschedule

  private[queue] def add(
      target: PgTarget,
      s: Schedule,
      json: Boolean,
      schema: QueueSchemaName = QueueSchemaName.default
  ): IO[ExitCode] =
    QueueArgs.connected("queue schedule", target, schema) { session =>
      (Schedules.add(session, s, schema), Schedules.list(session, schema))
        .mapN((replaced, all) =>
          ScheduleRender.added(s, replaced, all.find(_.schedule.name == s.name), json)
        )
        .flatMap(Console.out)
        .as(Exit.Ok)
        .handleErrorWith(e => QueueArgs.failed("queue schedule", e).as(Exit.Failed))
    }

  private[queue] def list(
      target: PgTarget,
      json: Boolean,
      schema: QueueSchemaName = QueueSchemaName.default
  ): IO[ExitCode] =
    QueueArgs.connected("queue schedules", target, schema) { session =>
      Schedules
        .list(session, schema)
        .flatMap(all => Console.out(ScheduleRender.listed(all, json)))
        .as(Exit.Ok)
        .handleErrorWith(e => QueueArgs.failed("queue schedules", e).as(Exit.Failed))
    }

  private[queue] def remove(
      target: PgTarget,
      name: String,
      schema: QueueSchemaName = QueueSchemaName.default
  ): IO[ExitCode] =
    QueueArgs.connected("queue unschedule", target, schema) { session =>
      Schedules
        .remove(session, name, schema)
        .flatMap {
          case true => Console.out(s"schedule $name removed").as(Exit.Ok)
          case false =>
            Console
              .error(
                s"weir queue unschedule: no schedule named $name (weir queue schedules lists them)"
              )
              .as(Exit.Failed)
        }
        .handleErrorWith(e => QueueArgs.failed("queue unschedule", e).as(Exit.Failed))
    }
