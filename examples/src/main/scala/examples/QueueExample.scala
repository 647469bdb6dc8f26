package examples

import cats.effect.{ExitCode, IO, IOApp}
import weir.postgres.{PgSession, PgTarget}
import weir.postgres.queue.{Enqueue, NewJob, QueueSchema}

/** weir-postgres as a dependency: applies the queue's schema to the database at the URL given and
  * enqueues one job (`run postgresql://user@host:port/db`).
  */
object QueueExample extends IOApp:
  def run(args: List[String]): IO[ExitCode] =
    PgTarget.parse(args.headOption, sys.env) match
      case Left(error) => IO.println(error).as(ExitCode(2))
      case Right(target) =>
        PgSession.open[IO](target).use { session =>
          QueueSchema.migrate[IO](session) >> Enqueue.one(session, NewJob("hello"))
        }.flatMap(id => IO.println(s"weir-postgres: enqueued job $id")).as(ExitCode.Success)
