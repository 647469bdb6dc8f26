package weir.cli.queue

import cats.effect.{ExitCode, IO}
import munit.CatsEffectSuite
import weir.cli.common.Exit
import weir.postgres.{PgSession, TestPg}
import weir.postgres.queue.{QueueSchema, QueueSchemaName}

/** The queue commands' start: a database without the queue, or whose queue lacks a migration of
  * this version of weir, is exit 2 before the command's program runs.
  */
class QueueArgsSuite extends CatsEffectSuite:

  private val ran = IO.pure(ExitCode(42))
  private val inWeir = QueueSchemaName.default
  private val inJobs = QueueSchemaName.from("jobs").toOption.get

  test(
    "no queue, an outdated queue: exit 2 and nothing run; an up-to-date queue: the program runs"
  ) {
    for
      bare <- TestPg.database("argsbare")
      noQueue <- QueueArgs.connected("worker", bare, inWeir)(_ => ran)
      db <- TestPg.database("argsold")
      _ <- PgSession.open[IO](db).use(QueueSchema.migrate[IO])
      current <- QueueArgs.connected("worker", db, inWeir)(_ => ran)
      // The queue is in weir: a command told --schema jobs finds none there.
      otherSchema <- QueueArgs.connected("worker", db, inJobs)(_ => ran)
      _ <- PgSession
        .open[IO](db)
        .use(_.update("DELETE FROM weir.migrations WHERE name = '0002_weir_stable_plans.sql'"))
      outdated <- QueueArgs.connected("worker", db, inWeir)(_ => ran)
    yield
      assertEquals(noQueue, Exit.BadInput)
      assertEquals(current, ExitCode(42))
      assertEquals(otherSchema, Exit.BadInput)
      assertEquals(outdated, Exit.BadInput)
  }
