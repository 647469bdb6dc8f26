package weir.postgres.queue

import cats.effect.{IO, Resource}
import cats.syntax.all.*
import com.zaxxer.hikari.{HikariConfig, HikariDataSource}
import doobie.*
import doobie.implicits.*
import munit.CatsEffectSuite
import scala.concurrent.duration.*
import weir.postgres.PgTarget

/** [[JdbcEnqueue]] on the application's own JDBC stack against a real PostgreSQL: inside a doobie
  * `ConnectionIO` transaction (`FC.raw`), on a bare connection in a transaction, and through a
  * HikariCP pool. What is asserted is what the server holds and the notifications it delivered.
  */
class JdbcEnqueueSuite extends CatsEffectSuite:
  import QueueDbs.*

  override def munitIOTimeout: Duration = 2.minutes

  private def transactor(db: PgTarget): Transactor[IO] =
    Transactor.fromDriverManager[IO](
      driver = "org.postgresql.Driver",
      url = db.jdbcUrl,
      user = db.user,
      password = db.password.getOrElse(""),
      logHandler = None
    )

  private def named(queue: String, n: Int, kind: String): Vector[NewJob] =
    jobs(n, queue).map(_.withKind(kind).fold(throw _, identity))

  test(
    "doobie: a rolled-back transaction leaves no job and wakes no one; a committed one wakes each queue once"
  ) {
    for
      db <- fresh("doobie")
      xa = transactor(db)
      _ <- sql"CREATE TABLE orders (id int PRIMARY KEY)".update.run.transact(xa)
      delivered <- Notifications.resource(db).use { listen =>
        val order = (id: Int) => sql"INSERT INTO orders VALUES ($id)".update.run
        val enqueue: ConnectionIO[(Long, Enqueued)] =
          for
            emails <- FC.raw(c => JdbcEnqueue.direct.many(c, named("emails", 50, "welcome")))
            sms <- FC.raw(c => JdbcEnqueue.direct.many(c, named("sms", 30, "code")))
            more <- FC
              .raw(c => JdbcEnqueue.direct.one(c, NewJob("late").withQueue("emails").toOption.get))
          yield (emails + sms, more)
        val failing = order(1) >> enqueue >> FC.raiseError[Unit](new RuntimeException("app fails"))
        for
          failed <- failing.transact(xa).attempt
          _ = assert(failed.isLeft)
          afterRollback <- listen.upTo
          written <- (order(2) >> enqueue).transact(xa)
          _ = assertEquals(written._1, 80L)
          _ = assert(written._2.isNew)
          afterCommit <- listen.upTo
        yield (afterRollback, afterCommit)
      }
      (rolledBack, committed) = delivered
      orders <- long(db, "SELECT count(*) FROM orders")
      emails <- long(db, "SELECT count(*) FROM weir.jobs WHERE queue = 'emails'")
      welcome <- long(
        db,
        "SELECT count(*) FROM weir.jobs WHERE queue = 'emails' AND kind = 'welcome'"
      )
      codes <- long(db, "SELECT count(*) FROM weir.jobs WHERE queue = 'sms' AND kind = 'code'")
    yield
      assertEquals(rolledBack, Vector.empty)
      // Two calls wrote to `emails` in that transaction: PostgreSQL delivers the identical
      // notifications of one transaction once.
      assertEquals(committed.sorted, Vector("emails", "sms"))
      assertEquals(orders, 1L)
      assertEquals(emails, 51L)
      assertEquals(welcome, 50L)
      assertEquals(codes, 30L)
  }

  test("on a bare connection: joins its transaction, leaves autocommit as it was, never commits") {
    for
      db <- fresh("bare")
      conn = Resource.fromAutoCloseable(
        IO.blocking(new org.postgresql.Driver().connect(db.jdbcUrl, db.properties))
      )
      kept <- conn.use { c =>
        for
          _ <- IO.blocking(c.setAutoCommit(false))
          one <- JdbcEnqueue.one[IO](c, NewJob("x").withUniqueKey("k"))
          dup <- JdbcEnqueue.one[IO](c, NewJob("y").withUniqueKey("k"))
          n <- JdbcEnqueue.many[IO](c, jobs(10))
          seenOutside <- long(db, "SELECT count(*) FROM weir.jobs")
          autoCommit <- IO.blocking(c.getAutoCommit)
          _ <- IO.blocking(c.rollback())
        yield (one.isNew, dup == Enqueued.Existing(one.id), n, seenOutside, autoCommit)
      }
      after <- long(db, "SELECT count(*) FROM weir.jobs")
    yield
      assertEquals(kept, (true, true, 10L, 0L, false))
      assertEquals(after, 0L)
  }

  test("HikariCP: enqueued through the pool, committed when its connections are not autocommit") {
    def pool(db: PgTarget, autoCommit: Boolean) =
      Resource.fromAutoCloseable(IO.blocking {
        val config = new HikariConfig()
        config.setJdbcUrl(db.jdbcUrl)
        config.setUsername(db.user)
        db.password.foreach(config.setPassword)
        config.setMaximumPoolSize(4)
        config.setAutoCommit(autoCommit)
        new HikariDataSource(config)
      })
    for
      db <- fresh("hikari")
      manual <- pool(db, autoCommit = false).use { ds =>
        (1 to 20).toList.parTraverse(i => JdbcEnqueue.one[IO](ds, NewJob(i.toString))) >>
          JdbcEnqueue.many[IO](ds, named("bulk", 100, "report"))
      }
      auto <- pool(db, autoCommit = true).use(ds => JdbcEnqueue.many[IO](ds, jobs(5, "auto")))
      total <- long(db, "SELECT count(*) FROM weir.jobs")
      reports <- long(db, "SELECT count(*) FROM weir.jobs WHERE queue = 'bulk' AND kind = 'report'")
    yield
      assertEquals(manual, 100L)
      assertEquals(auto, 5L)
      assertEquals(total, 125L)
      assertEquals(reports, 100L)
  }
