package weir.cli.queue

import cats.effect.IO
import munit.CatsEffectSuite
import scala.concurrent.duration.*
import weir.cli.applysql.{ApplySqlRender, ApplySqlReport}
import weir.cli.common.{Args, Exit}
import weir.postgres.{PgSession, PgTarget, TestPg}
import weir.postgres.queue.QueueSchema

/** `weir queue init` against a real PostgreSQL ([[TestPg]]): the queue's migrations through the
  * library's [[QueueSchema.migrate]], applied once (exit 0, then 0 again with nothing to do), no
  * server exit 2, and the summary line for line what `weir apply-sql --migrations` prints.
  */
class QueueInitSuite extends CatsEffectSuite:

  override def munitIOTimeout: Duration = 2.minutes

  test("init applies the queue's migrations once; again, nothing; no server, exit 2") {
    val port = TestPg.freePort()
    val dead = PgTarget.parse(Some(s"postgresql://u@127.0.0.1:$port/db"), Map.empty).toOption.get
    for
      db <- TestPg.database("init")
      first <- QueueCommand.initialize(db)
      again <- QueueCommand.initialize(db)
      missing <- PgSession.open[IO](db).use(QueueSchema.missing[IO])
      unreachable <- QueueCommand.initialize(dead)
    yield
      assertEquals(first, Exit.Ok)
      assertEquals(again, Exit.Ok)
      assertEquals(missing, Nil)
      assertEquals(unreachable, Exit.BadInput)
  }

  test("the summary is what weir apply-sql --migrations prints for the same run") {
    for
      db <- TestPg.database("initrender")
      applied <- PgSession.open[IO](db).use(QueueSchema.migrate[IO])
      again <- PgSession.open[IO](db).use(QueueSchema.migrate[IO])
    yield
      List(applied, again).foreach {
        case Right(m) =>
          val asApplySql = ApplySqlRender(
            Args.Format.Text,
            ApplySqlReport.Applied(m.report, Some(m.alreadyApplied), m.warnings)
          )
          assertEquals(QueueRender.migrated(m), asApplySql)
        case Left(e) => fail(s"the migrations failed: $e")
      }
      val refused = ApplySqlReport.Refused(new IllegalStateException("no"))
      assertEquals(QueueRender.notMigrated, ApplySqlRender(Args.Format.Text, refused))
  }
