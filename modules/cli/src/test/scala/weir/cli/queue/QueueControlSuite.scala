package weir.cli.queue

import cats.effect.{ExitCode, IO}
import com.monovore.decline.Command
import munit.CatsEffectSuite
import scala.concurrent.duration.*
import weir.cli.common.Exit
import weir.postgres.{PgSession, TestPg}
import weir.postgres.queue.{Enqueue, NewJob, QueueSchema}

/** `weir queue pause | resume | cancel` against a real PostgreSQL ([[TestPg]]): exit 0 when done, 1
  * for a queue never seen or a job that had finished, 2 for bad input; the database says what
  * changed.
  */
class QueueControlSuite extends CatsEffectSuite:

  override def munitIOTimeout: Duration = 2.minutes

  private val queue =
    Command("queue", "")(QueueControl.pause orElse QueueControl.resume orElse QueueControl.cancel)

  private def run(args: String*): IO[ExitCode] =
    queue.parse(args.toList, Map.empty).fold(_ => IO.pure(Exit.BadInput), identity)

  test("pause and resume a queue; a queue never seen is exit 1; cancel a job once, then exit 1") {
    for
      db <- TestPg.database("control")
      _ <- PgSession.open[IO](db).use(QueueSchema.migrate[IO])
      id <- PgSession.open[IO](db).use(s => Enqueue.one(s, NewJob("x"))).map(_.id)
      url = db.uriWithoutPassword
      paused <- run("pause", "--url", url, "default")
      pausedAt <- PgSession
        .open[IO](db)
        .use(
          _.query("SELECT count(*) FROM weir.queues WHERE paused_at IS NOT NULL")
        )
      unknown <- run("pause", "--url", url, "nosuch")
      resumed <- run("resume", "--url", url, "default")
      cancelled <- run("cancel", "--url", url, id.toString)
      again <- run("cancel", "--url", url, id.toString)
      notANumber <- run("cancel", "--url", url, "x1")
      state <- PgSession.open[IO](db).use(_.query(s"SELECT state FROM weir.jobs WHERE id = $id"))
    yield
      assertEquals(paused, Exit.Ok)
      assertEquals(pausedAt, Vector(Vector(Some("1"))))
      assertEquals(unknown, Exit.Failed)
      assertEquals(resumed, Exit.Ok)
      assertEquals(cancelled, Exit.Ok)
      assertEquals(again, Exit.Failed)
      assertEquals(notANumber, Exit.BadInput)
      assertEquals(state, Vector(Vector(Some("cancelled"))))
  }
