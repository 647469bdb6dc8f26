package weir.postgres.queue

import cats.effect.{IO, Resource}
import munit.CatsEffectSuite
import natchez.Trace.Implicits.noop
import scala.concurrent.duration.*
import scala.sys.process.*
import skunk.*
import skunk.codec.all.*
import skunk.implicits.*
import weir.postgres.{PgTarget, TestPg}

/** The SQL function `weir.enqueue` (migration 0004) called as an application would: from skunk
  * (which speaks PostgreSQL's protocol without JDBC) in its own transactions, with named arguments
  * and a jsonb payload, and from psql. Asserted on the rows the server holds.
  */
class SqlEnqueueSuite extends CatsEffectSuite:
  import QueueDbs.*

  override def munitIOTimeout: Duration = 2.minutes

  private def skunk(db: PgTarget): Resource[IO, Session[IO]] =
    Session.single[IO](
      host = db.host,
      port = db.port,
      user = db.user,
      database = db.database,
      password = db.password
    )

  private val welcome: Query[String, Option[Long]] =
    sql"SELECT weir.enqueue('emails', $text, kind => 'welcome')".query(int8.opt)

  private val welcomeJson: Query[String, Option[Long]] =
    sql"SELECT weir.enqueue('emails', $text::jsonb, kind => 'welcome', priority => 3, unique_key => 'a')"
      .query(int8.opt)

  test("skunk: a rolled-back transaction leaves no job; a committed one leaves them, kind set") {
    for
      db <- fresh("skunk")
      ids <- skunk(db).use { s =>
        val enqueue = s.prepare(welcome).flatMap(_.unique("""{"to":"a"}""")) >>
          s.prepare(welcomeJson).flatMap(_.unique("""{"to": "b"}"""))
        for
          rolledBack <- s.transaction
            .use(_ => enqueue >> IO.raiseError(new Exception("no")))
            .attempt
          _ = assert(rolledBack.isLeft)
          first <- s.transaction.use(_ => enqueue)
          // The unique key is taken by the job just committed: its id (0008), nothing inserted.
          again <- s.prepare(welcomeJson).flatMap(_.unique("""{"to": "c"}"""))
        yield (first, again)
      }
      total <- long(db, "SELECT count(*) FROM weir.jobs")
      welcomed <- long(
        db,
        "SELECT count(*) FROM weir.jobs WHERE kind = 'welcome' AND queue = 'emails'"
      )
      // The jsonb payload is stored as jsonb's text (normalised: `{"to": "b"}`), read back as jsonb.
      json <- long(
        db,
        """SELECT count(*) FROM weir.jobs
          | WHERE payload::jsonb = '{"to":"b"}' AND priority = 3 AND unique_key = 'a'""".stripMargin
      )
    yield
      assert(ids._1.isDefined)
      assertEquals(ids._2, ids._1)
      assertEquals(total, 2L)
      assertEquals(welcomed, 2L)
      assertEquals(json, 1L)
  }

  test("psql: weir.enqueue with named arguments, a text and a jsonb payload") {
    for
      db <- fresh("psql")
      out <- IO.blocking {
        val psql = TestPg.bin.resolve("psql").toString
        val sql =
          """SELECT weir.enqueue('emails', '{"to":"a"}', kind => 'welcome');
            |SELECT weir.enqueue('emails', '{"to":"b"}'::jsonb, kind => 'welcome', max_attempts => 3);
            |SELECT weir.enqueue('reports', 'r', priority => 5, run_at => now() + interval '1 hour');
            |""".stripMargin
        val env = db.password.map("PGPASSWORD" -> _).toSeq
        Process(
          Seq(
            psql,
            "-X",
            "-q",
            "-A",
            "-t",
            "-v",
            "ON_ERROR_STOP=1",
            "-h",
            db.host,
            "-p",
            db.port.toString,
            "-U",
            db.user,
            "-d",
            db.database,
            "-c",
            sql
          ),
          None,
          env*
        ).!!
      }
      welcomed <- long(db, "SELECT count(*) FROM weir.jobs WHERE kind = 'welcome'")
      limited <- long(db, "SELECT count(*) FROM weir.jobs WHERE max_attempts = 3")
      later <- long(
        db,
        "SELECT count(*) FROM weir.jobs WHERE queue = 'reports' AND kind = 'default' AND priority = 5 AND run_at > now()"
      )
    yield
      assertEquals(out.linesIterator.count(_.trim.nonEmpty), 3, out)
      assertEquals(welcomed, 2L)
      assertEquals(limited, 1L)
      assertEquals(later, 1L)
  }

  test("weir.enqueue: many calls in one transaction wake each queue once; a rollback wakes none") {
    val calls =
      """SELECT weir.enqueue(q, i::text, kind => 'n')
        |  FROM (SELECT CASE WHEN i % 3 = 0 THEN 'sms' ELSE 'emails' END, i
        |          FROM generate_series(1, 30) i) AS t(q, i)""".stripMargin
    for
      db <- fresh("sqlnotify")
      delivered <- Notifications.resource(db).use { listen =>
        weir.postgres.PgSession.open[IO](db).use { s =>
          // One call per statement, in one transaction: 30 pg_notify calls in all.
          val each = (1 to 30).toVector.map(i =>
            s"SELECT weir.enqueue('${if i % 3 == 0 then "sms" else "emails"}', '$i', kind => 'n')"
          )
          for
            _ <- s.transaction(on = true)
            _ <- s.runEach(each)
            _ <- s.rollback
            afterRollback <- listen.upTo
            _ <- s.runEach(each)
            _ <- s.update(calls)
            _ <- s.commit
            afterCommit <- listen.upTo
          yield (afterRollback, afterCommit)
        }
      }
      total <- long(db, "SELECT count(*) FROM weir.jobs WHERE kind = 'n'")
    yield
      assertEquals(delivered._1, Vector.empty)
      assertEquals(delivered._2.sorted, Vector("emails", "sms"))
      assertEquals(total, 60L)
  }

  test("weir.enqueue refuses a priority outside smallint's range, inserting nothing") {
    for
      db <- fresh("range")
      result <- sql(db)(c =>
        Jdbc.prepared(c, "SELECT weir.enqueue('q', 'p', priority => 40000)")(s =>
          Jdbc.rows(s)(_.getLong(1))
        )
      ).attempt
      total <- long(db, "SELECT count(*) FROM weir.jobs")
    yield
      assert(result.left.exists(_.getMessage.contains("smallint out of range")), result)
      assertEquals(total, 0L)
  }

  test("jobs and jobs_archive keep identical column lists; enqueue paths all write the kind") {
    val columns = (table: String) =>
      s"""SELECT string_agg(column_name || ' ' || data_type, ', ' ORDER BY ordinal_position)
         |  FROM information_schema.columns WHERE table_schema = 'weir' AND table_name = '$table'""".stripMargin
    for
      db <- fresh("kinds")
      jobsCols <- sql(db)(c =>
        Jdbc.prepared(c, columns("jobs"))(s => Jdbc.rows(s)(_.getString(1)).head)
      )
      archiveCols <- sql(db)(c =>
        Jdbc.prepared(c, columns("jobs_archive"))(s => Jdbc.rows(s)(_.getString(1)).head)
      )
      kinded = (n: NewJob) => n.withKind("k").fold(throw _, identity)
      _ <- weir.postgres.PgSession.open[IO](db).use { s =>
        Enqueue.many(s, jobs(3).map(kinded)) >> // COPY
          Enqueue
            .many(s, jobs(2).map(kinded).map(_.withRunAt(java.time.Instant.now))) >> // COPY, run_at
          Enqueue.many(s, Vector(kinded(NewJob("u")).withUniqueKey("u"))) >> // INSERT
          Enqueue.one(s, NewJob("plain"))
      }
      kinds <- long(db, "SELECT count(*) FROM weir.jobs WHERE kind = 'k'")
      plain <- long(db, "SELECT count(*) FROM weir.jobs WHERE kind = 'default'")
    yield
      assertEquals(jobsCols, archiveCols)
      assert(
        jobsCols.endsWith(
          "kind text, timeout_ms bigint, unique_period timestamp with time zone, error_history jsonb"
        ),
        jobsCols
      )
      assertEquals(kinds, 6L)
      assertEquals(plain, 1L)
  }
