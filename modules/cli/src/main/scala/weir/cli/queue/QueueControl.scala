package weir.cli.queue

import cats.data.NonEmptyList
import cats.effect.{ExitCode, IO}
import cats.syntax.all.*
import com.monovore.decline.Opts
import weir.cli.common.{Args, Console, Exit}
import weir.postgres.PgTarget
import weir.postgres.queue.{QueueAdmin, QueueSchemaName}

/** `weir queue pause | resume | cancel`: holding a queue's jobs back, letting them go again, and
  * cancelling jobs, running ones included. Each is one statement ([[QueueAdmin]]), its answer one
  * line on stdout; what could not be done is one line on stderr and exit 1 (a queue never seen, a
  * job that had finished or does not exist); no database or no queue is exit 2, as for every queue
  * command.
  */
object QueueControl:

  private val queueName: Opts[String] = Opts
    .argument[String]("QUEUE")
    .mapValidated(q =>
      if q.trim.isEmpty then "QUEUE must not be empty".invalidNel else q.trim.validNel
    )

  val pause: Opts[IO[ExitCode]] = Opts.subcommand(
    "pause",
    """Pause a queue: from now on no worker claims its jobs (every worker, on every machine: the claim itself answers nothing for a paused queue). Jobs already running finish; jobs may still be enqueued, and wait. Undo with weir queue resume. A queue that has never been seen (no job of it, never paused) is an error: check the name.
      |
      |Exit 0 paused (or paused already), 1 no such queue, 2 no database or no queue schema.
      |
      |Examples:
      |  weir queue pause emails
      |  weir queue pause emails && weir queue stats --queue emails""".stripMargin
  )((QueueArgs.target(sys.env), QueueArgs.schema, queueName).mapN(toggle("pause", paused = true)))

  val resume: Opts[IO[ExitCode]] = Opts.subcommand(
    "resume",
    """Resume a paused queue: workers claim its jobs again, idle ones woken at once by a notification (or, if it is lost, within their poll interval).
      |
      |Exit 0 resumed (or not paused), 1 no such queue, 2 no database or no queue schema.
      |
      |Example:
      |  weir queue resume emails""".stripMargin
  )(
    (QueueArgs.target(sys.env), QueueArgs.schema, queueName).mapN(toggle("resume", paused = false))
  )

  val cancel: Opts[IO[ExitCode]] = Opts.subcommand(
    "cancel",
    """Cancel jobs by id: available, scheduled, running or discarded ones. A cancelled job is never claimed again. A running one keeps its worker busy only until that worker's next lease renewal (a third of the lease by default): the worker interrupts its handler then, and its completion, were it to come, is refused. Jobs that had finished (or no such id) are named on stderr.
      |
      |Exit 0 every job cancelled, 1 some had finished or do not exist, 2 bad input, no database or no queue schema.
      |
      |Examples:
      |  weir queue cancel 1042
      |  weir queue cancel 1042 1043 1044""".stripMargin
  )(
    (
      QueueArgs.target(sys.env),
      QueueArgs.schema,
      Opts.arguments[String]("ID").mapValidated(_.traverse(Args.parseLong("ID", _)))
    ).mapN(cancelling)
  )

  private def toggle(command: String, paused: Boolean)(
      target: PgTarget,
      schema: QueueSchemaName,
      queue: String
  ) =
    QueueArgs.connected(s"queue $command", target, schema) { session =>
      val call =
        if paused then QueueAdmin.pause(session, queue, schema)
        else QueueAdmin.resume(session, queue, schema)
      call.flatMap {
        case Left(unknown) =>
          Console.error(s"weir queue $command: ${unknown.getMessage}").as(Exit.Failed)
        case Right(was) => Console.out(QueueRender.toggled(queue, paused, was)).as(Exit.Ok)
      }
    }

  private def cancelling(target: PgTarget, schema: QueueSchemaName, ids: NonEmptyList[Long]) =
    QueueArgs.connected("queue cancel", target, schema) { session =>
      QueueAdmin.cancel(session, ids.toList.distinct, schema).flatMap { cancelled =>
        val missed = ids.toList.distinct.filterNot(cancelled.toSet)
        Console.out(QueueRender.cancelled(cancelled)) >>
          (if missed.isEmpty then IO.pure(Exit.Ok)
           else
             Console
               .error(
                 s"weir queue cancel: not cancelled (finished already, or no such job): ${missed.mkString(", ")}"
               )
               .as(Exit.Failed)
          )
      }
    }
