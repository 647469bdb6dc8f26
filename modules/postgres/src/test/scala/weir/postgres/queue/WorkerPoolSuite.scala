package weir.postgres.queue

import cats.effect.{IO, Resource}
import cats.syntax.all.*
import com.zaxxer.hikari.{HikariConfig, HikariDataSource}
import munit.CatsEffectSuite
import scala.concurrent.duration.*
import weir.postgres.{PgSession, PgTarget}

/** A [[Worker]] on the application's HikariCP pool ([[Worker.fromDataSource]]) against a real
  * PostgreSQL: it completes every job taking four connections from the pool at most, while the
  * application enqueues through the same pool, gives them back as it borrowed them, and loses no
  * job when the server terminates its connections mid-run. Everything asserted is counted.
  */
class WorkerPoolSuite extends CatsEffectSuite:
  import QueueDbs.*
  import Faults.*

  override def munitIOTimeout: Duration = 2.minutes

  private val quick = quickQueue()
  private val engine = smallEngine

  private def pool(db: PgTarget, size: Int): Resource[IO, HikariDataSource] =
    Resource.fromAutoCloseable(IO.blocking {
      val config = new HikariConfig()
      config.setJdbcUrl(db.jdbcUrl)
      config.setUsername(db.user)
      db.password.foreach(config.setPassword)
      config.setMaximumPoolSize(size)
      config.setMinimumIdle(0)
      config.setConnectionTimeout(2000)
      config.setAutoCommit(false) // as many applications run theirs: the worker must not care
      config.addDataSourceProperty("ApplicationName", "the app")
      new HikariDataSource(config)
    })

  private val completed = "SELECT count(*) FROM weir.jobs WHERE state = 'completed'"

  private def workerConnections(db: PgTarget): IO[Long] =
    long(
      db,
      "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND application_name LIKE 'weir worker (%'"
    )

  test(
    "on a pool of five: every job completed, the app enqueueing through the same pool, four connections at most taken, given back as lent"
  ) {
    val n = 2000
    for
      db <- fresh("pool")
      outcome <- pool(db, 5).use { ds =>
        val active = IO(ds.getHikariPoolMXBean.getActiveConnections.toLong)
        for
          _ <- JdbcEnqueue.many[IO](ds, jobs(n / 2))
          most <- IO.ref(0L)
          named <- IO.ref(0L)
          sample = (active, workerConnections(db)).flatMapN((a, w) =>
            most.update(_.max(a)) >> named.update(_.max(w))
          )
          report <- Worker.fromDataSource[IO](ds, quick, engine).use { w =>
            val app =
              JdbcEnqueue.many[IO](ds, jobs(n / 2)) >> waitCount(db, completed, n.toLong) >> w.stop
            (IO.sleep(10.millis) >> sample).foreverM.background.surround(
              w.run(_ => IO.sleep(1.millis)).both(app).map(_._1)
            )
          }
          afterActive <- active
          leftNamed <- workerConnections(db)
          listening <- long(
            db,
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'the app'"
          )
          total = ds.getHikariPoolMXBean.getTotalConnections.toLong
          m <- most.get
          w <- named.get
        yield (report, m, w, afterActive, leftNamed, listening, total)
      }
      (report, most, named, afterActive, leftNamed, asLent, total) = outcome
      left <- long(db, "SELECT count(*) FROM weir.jobs WHERE state <> 'completed'")
    yield
      assertEquals(left, 0L)
      assertEquals(report.counts.written.completed, n)
      assert(most <= 5L, s"$most connections active")
      assertEquals(named, 4L) // claim, ack, upkeep, listen: never more
      assertEquals(afterActive, 0L)
      assertEquals(leftNamed, 0L)
      // Every connection the pool still holds was given back named as it was lent.
      assertEquals(asLent, total)
  }

  test("pool connections terminated by the server mid-run: borrowed again, no job lost") {
    val n = 2000
    for
      db <- fresh("poolkill")
      _ <- PgSession.open[IO](db).use(s => Enqueue.many(s, jobs(n)))
      killed <- IO.deferred[Unit]
      // The second half waits for the kill, so that it lands mid-run however fast the machine is.
      handler = (j: Job) => killed.get.whenA(j.payload.toInt >= n / 2) >> IO.sleep(1.millis)
      report <- pool(db, 4).use { ds =>
        Worker.fromDataSource[IO](ds, quick, engine).use { w =>
          val kill =
            waitCount(db, completed, (n / 4).toLong, atLeast = true) >>
              waitUntil("the four connections")(workerConnections(db).map(_ == 4)) >>
              long(
                db,
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = current_database() AND application_name LIKE 'weir worker (%'"
              ).flatMap(k => IO(assertEquals(k, 4L))) >> killed.complete(()) >>
              waitCount(db, completed, n.toLong) >> w.stop
          w.run(handler).both(kill).map(_._1)
        }
      }
      left <- long(db, "SELECT count(*) FROM weir.jobs WHERE state <> 'completed'")
      twice <- long(db, "SELECT count(*) FROM weir.jobs WHERE attempt > 1")
    yield
      assertEquals(left, 0L)
      assert(report.lostConnections > 0, s"no connection was seen lost: $report")
      assertEquals(report.counts.written.rejected, 0)
      // A claim whose answer the kill cut off comes back after its lease, claimed again.
      assert(twice <= 8L * 4, s"$twice jobs ran twice")
  }

  test("a pool whose connections are not pgjdbc's: acquiring the worker fails at once, saying so") {
    // A connection that is no PostgreSQL connection underneath (isWrapperFor false, close a no-op).
    val foreign = java.lang.reflect.Proxy
      .newProxyInstance(
        getClass.getClassLoader,
        Array(classOf[java.sql.Connection]),
        (_, m, _) => if m.getName == "isWrapperFor" then java.lang.Boolean.FALSE else null
      )
      .asInstanceOf[java.sql.Connection]
    val pool = new javax.sql.DataSource:
      def getConnection(): java.sql.Connection = foreign
      def getConnection(u: String, p: String): java.sql.Connection = foreign
      def getLogWriter(): java.io.PrintWriter = null
      def setLogWriter(out: java.io.PrintWriter): Unit = ()
      def setLoginTimeout(seconds: Int): Unit = ()
      def getLoginTimeout(): Int = 0
      def getParentLogger(): java.util.logging.Logger = null
      def unwrap[T](iface: Class[T]): T = throw new java.sql.SQLException("no")
      def isWrapperFor(iface: Class[?]): Boolean = false
    Worker.fromDataSource[IO](pool, quick).use_.attempt.map {
      case Left(e: IllegalArgumentException) =>
        assert(e.getMessage.contains("not PostgreSQL's pgjdbc ones"), e.getMessage)
      case other => fail(s"expected an IllegalArgumentException, got $other")
    }
  }
