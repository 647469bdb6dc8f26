package weir.cli.queue

import cats.effect.{ExitCode, IO, Resource}
import cats.syntax.all.*
import com.monovore.decline.Opts
import weir.cli.common.{Args, Console, Exit, Interrupts}
import weir.postgres.{ApplyError, ApplyReport, PgSession, PgTarget, SplitError}
import weir.postgres.queue.{QueueAdmin, QueueSchema, QueueSchemaName}

/** `weir queue init | stats | retry | pause | resume | cancel | torture`: the queue's schema, its
  * state, re-driving discarded jobs, holding a queue back ([[QueueControl]]), cancelling jobs, and
  * the crash test.
  */
object QueueCommand:

  private val init = Opts.subcommand(
    "init",
    "Create the queue's schema (weir.jobs and its indexes; with --schema NAME, NAME.jobs...) through weir apply-sql's migrations: recorded in weir.migrations (NAME.migrations), applied once, under the migrations' lock; safe to run again."
  )((QueueArgs.target(sys.env), QueueArgs.schema).mapN(initialize))

  /** `weir queue init`: the queue's migrations through [[QueueSchema.migrate]], reported as `weir
    * apply-sql --migrations` reports them (the error on stderr, the summary on stdout) with its
    * exit codes: 0 applied, 1 a statement failed or the connection was lost, 2 no connection or a
    * changed migration, 130 interrupted (the first Ctrl-C rolls the current file back; the second
    * quits at once).
    */
  private[queue] def initialize(
      target: PgTarget,
      schema: QueueSchemaName = QueueSchemaName.default
  ): IO[ExitCode] =
    val waiting = Console.error(
      "weir apply-sql: another run holds the migrations lock on this database; waiting for it"
    )
    val migrated = ctrlC.use { pressed =>
      PgSession
        .open[IO](target, "weir queue init")
        .use(QueueSchema.migrate[IO](_, schema, waiting, pressed))
        .attempt
        .map(_.flatten)
    }
    migrated.flatMap {
      case Left(error) =>
        Console.error(s"weir apply-sql: ${error.getMessage}") >>
          Console.out(QueueRender.notMigrated).as(exitOf(error))
      case Right(result) =>
        val (code, error) = result.report.outcome match
          case ApplyReport.Outcome.Completed         => (Exit.Ok, None)
          case ApplyReport.Outcome.Interrupted(_, _) => (Exit.Interrupted, None)
          case ApplyReport.Outcome.Failed(e)         => (exitOf(e), Some(e))
        error.traverse_(e => Console.error(s"weir apply-sql: ${e.getMessage}")) >>
          Console.out(QueueRender.migrated(result)).as(code)
    }

  // As weir apply-sql: a statement that failed or a lost connection is 1, bad input 2.
  private def exitOf(error: Throwable): ExitCode = error match
    case _: ApplyError.StatementFailed | _: ApplyError.ConnectionLost => Exit.Failed
    case _: ApplyError | _: SplitError                                => Exit.BadInput
    case _                                                            => Exit.Failed

  // Ctrl-C: the first rolls the apply back, the second quits (see Interrupts.rollingBack).
  private val ctrlC: Resource[IO, IO[Unit]] = Interrupts.rollingBack

  private val stats = Opts.subcommand(
    "stats",
    "The queue now: jobs by state, completions in the last minute, the age of the oldest job due, expired leases, late writes refused, the table's size and dead tuples."
  )((QueueArgs.target(sys.env), QueueArgs.schema, QueueArgs.someQueue, QueueArgs.json).mapN {
    (target, schema, queue, json) =>
      QueueArgs.connected("queue stats", target, schema) { session =>
        QueueAdmin
          .stats(session, queue, schema)
          .flatMap(s => Console.out(QueueRender.stats(s, json, schema)))
          .as(Exit.Ok)
      }
  })

  private val retry = Opts.subcommand(
    "retry",
    """Re-drive discarded jobs (those that failed their last attempt): available again at once, with --attempts more attempts. Without --id, every discarded job of the queue (or of every queue). --list shows them instead.
      |
      |Examples:
      |  weir queue retry --list
      |  weir queue retry --queue fetch --attempts 3
      |  weir queue retry --id 1042 --id 1043""".stripMargin
  )(
    (
      QueueArgs.target(sys.env),
      QueueArgs.schema,
      QueueArgs.someQueue,
      Opts.options[String]("id", "A discarded job's id (repeatable).", metavar = "ID").orEmpty,
      Args.positiveInt("attempts", "More attempts each re-driven job gets.", 1),
      Opts.flag("list", "List discarded jobs (at most 100), change nothing.").orFalse,
      QueueArgs.json
    ).tupled
      .mapValidated { case (target, schema, queue, ids, attempts, list, json) =>
        ids.traverse(Args.parseLong("id", _)).map((target, schema, queue, _, attempts, list, json))
      }
      .map { (target, schema, queue, ids, attempts, list, json) =>
        QueueArgs.connected("queue retry", target, schema) { session =>
          if list then
            QueueAdmin
              .discarded(session, queue, 100, schema)
              .flatMap(d => Console.out(QueueRender.discarded(d, json)))
              .as(Exit.Ok)
          else
            QueueAdmin.retryDiscarded(session, queue, ids, attempts, schema).flatMap { n =>
              Console
                .out(QueueRender.retried(n, json))
                .as(if ids.nonEmpty && n < ids.size then Exit.Failed else Exit.Ok)
            }
        }
      }
  )

  val opts: Opts[IO[ExitCode]] =
    Opts.subcommand(
      "queue",
      """A durable queue on PostgreSQL: many workers on many machines draining one table of jobs, losing nothing when one dies. Put jobs in with weir enqueue, drain them with weir worker.
        |
        |Examples:
        |  weir queue init --url postgresql://me@localhost/db
        |  weir queue init --schema billing_queue          a second queue in a schema of its own (then --schema on every command)
        |  weir queue stats
        |  weir queue retry --list
        |  weir queue schedule nightly --cron "0 3 * * *" --payload report     a job each night at 03:00 UTC
        |  weir queue pause emails                         no worker claims from queue emails until weir queue resume emails
        |  weir queue cancel 1042                          a running job's handler is interrupted at its worker's next heartbeat
        |  weir queue torture --workers 4 --jobs 20000     kill -9 workers at random and check nothing is lost
        |  weir queue ui                                   the queue in a browser at http://127.0.0.1:8181/""".stripMargin
    )(
      init orElse stats orElse retry orElse QueueControl.pause orElse QueueControl.resume orElse
        QueueControl.cancel orElse TortureCommand.opts orElse ScheduleCommand.opts orElse
        UiCommand.opts
    )
