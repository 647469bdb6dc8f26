package weir.postgres.queue

import cats.effect.IO
import munit.CatsEffectSuite
import scala.concurrent.duration.*
import weir.engine.RetryPolicy
import weir.postgres.{PgSession, PgTarget, TestPg}
import weir.{Attempts, NonNegativeDuration}

/** The queue's own errors ([[QueueError]]) against a real PostgreSQL ([[TestPg]]): a database
  * without the queue or with an outdated one ([[QueueSchema.check]]), and a server that cannot be
  * reached ([[QueueDb]]); each message names the database and what to do, never a password.
  */
class QueueErrorSuite extends CatsEffectSuite:
  import QueueDbs.*

  override def munitIOTimeout: Duration = 2.minutes

  private val reconnect = RetryPolicy.exponential(
    Attempts(2),
    NonNegativeDuration.millis(10),
    NonNegativeDuration.millis(100)
  )

  test("check: no queue, a queue lacking a migration, an up-to-date queue") {
    for
      bare <- TestPg.database("checkbare")
      none <- PgSession.open[IO](bare).use(QueueSchema.check[IO])
      db <- fresh("check")
      current <- PgSession.open[IO](db).use(QueueSchema.check[IO])
      _ <- PgSession
        .open[IO](db)
        .use(_.update("DELETE FROM weir.migrations WHERE name = '0002_weir_stable_plans.sql'"))
      outdated <- PgSession.open[IO](db).use(QueueSchema.check[IO])
    yield
      assertEquals(none, Left(QueueError.NoQueue(bare.show)))
      assertEquals(current, Right(()))
      assertEquals(
        outdated,
        Left(QueueError.MissingMigrations(db.show, List("0002_weir_stable_plans.sql")))
      )
      assert(outdated.left.exists(!_.getMessage.contains("weir queue init")))
  }

  test("a connection a queue handle cannot open is a QueueError.ConnectFailed: a lost connection") {
    val port = TestPg.freePort()
    val dead =
      PgTarget.parse(Some(s"postgresql://u:secret@127.0.0.1:$port/db"), Map.empty).toOption.get
    QueueDb.resource[IO](dead, "weir test", reconnect).use(_.once(_ => ())).attempt.map {
      case Left(e: QueueError.ConnectFailed) =>
        assert(QueueDb.lost(e))
        assert(e.getMessage.startsWith("cannot connect to postgresql://u:***@127.0.0.1"))
        assert(!e.getMessage.contains("secret"), e.getMessage)
      case other => fail(s"expected a connection failure, got $other")
    }
  }
