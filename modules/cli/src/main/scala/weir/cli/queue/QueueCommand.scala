package weir.cli.queue

import cats.effect.{ExitCode, IO}
import cats.syntax.all.*
import com.monovore.decline.Opts
import weir.cli.applysql.{ApplySqlCommand, ApplySqlPlan}
import weir.cli.common.{Args, Console, Exit, Invocation, Output}
import weir.postgres.ApplySettings
import weir.postgres.queue.{QueueAdmin, QueueSchema}
import weir.runtime.RuntimePreset

/** `weir queue init | stats | retry | torture`: the queue's schema, its state, re-driving discarded
  * jobs, and the crash test.
  */
object QueueCommand:

  private val init = Opts.subcommand(
    "init",
    "Create the queue's schema (weir.jobs and its indexes) through weir apply-sql's migrations: recorded in weir.migrations, applied once, under the migrations' lock; safe to run again."
  )(QueueArgs.target(sys.env).map { target =>
    QueueSchema.directory[IO].use { dir =>
      ApplySqlCommand.run(
        ApplySqlPlan(
          target,
          ApplySqlPlan.Input.Migrations(dir, dryRun = false),
          ApplySettings.default,
          1,
          RuntimePreset.WorkStealing,
          Output(Output.Stdout.Plain(Args.Format.Text), None),
          live = false
        ),
        Invocation(List("queue", "init"))
      )
    }
  })

  private val stats = Opts.subcommand(
    "stats",
    "The queue now: jobs by state, completions in the last minute, the age of the oldest job due, expired leases, late writes refused, the table's size and dead tuples."
  )((QueueArgs.target(sys.env), QueueArgs.someQueue, QueueArgs.json).mapN { (target, queue, json) =>
    QueueArgs.connected("queue stats", target) { session =>
      QueueAdmin
        .stats(session, queue)
        .flatMap(s => Console.out(QueueRender.stats(s, json)))
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
      QueueArgs.someQueue,
      Opts.options[String]("id", "A discarded job's id (repeatable).", metavar = "ID").orEmpty,
      Args.positiveInt("attempts", "More attempts each re-driven job gets.", 1),
      Opts.flag("list", "List discarded jobs (at most 100), change nothing.").orFalse,
      QueueArgs.json
    ).tupled
      .mapValidated { case (target, queue, ids, attempts, list, json) =>
        ids.traverse(Args.parseLong("id", _)).map((target, queue, _, attempts, list, json))
      }
      .map { (target, queue, ids, attempts, list, json) =>
        QueueArgs.connected("queue retry", target) { session =>
          if list then
            QueueAdmin
              .discarded(session, queue, 100)
              .flatMap(d => Console.out(QueueRender.discarded(d, json)))
              .as(Exit.Ok)
          else
            QueueAdmin.retryDiscarded(session, queue, ids, attempts).flatMap { n =>
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
        |  weir queue stats
        |  weir queue retry --list
        |  weir queue torture --workers 4 --jobs 20000     kill -9 workers at random and check nothing is lost""".stripMargin
    )(init orElse stats orElse retry orElse TortureCommand.opts)
