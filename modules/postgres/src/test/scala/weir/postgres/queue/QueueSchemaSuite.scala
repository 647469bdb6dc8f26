package weir.postgres.queue

import cats.effect.{IO, Ref}
import cats.syntax.all.*
import munit.CatsEffectSuite
import scala.concurrent.duration.*
import weir.ConfigError
import weir.postgres.{ApplyReport, Migrations, PgSession, PgTarget, TestPg}

/** The queue in a schema of the user's choosing ([[QueueSchemaName]]) on a real PostgreSQL: two
  * queues in two schemas of one database (and no `weir` schema at all, so that a statement left on
  * `weir` fails) take jobs from Scala and from each schema's SQL `enqueue`, wake only their own
  * workers, and each worker claims only its schema's jobs; the default schema keeps the checksums
  * it has always recorded; bad names are refused with a message. Counted in the database.
  */
class QueueSchemaSuite extends CatsEffectSuite:
  import QueueDbs.*

  override def munitIOTimeout: Duration = 2.minutes

  private def schema(name: String): QueueSchemaName =
    QueueSchemaName.from(name).fold(e => fail(e.getMessage), identity)

  private val jobs = schema("jobs")
  private val billing = schema("billing_queue")

  private def migrated(db: PgTarget, s: QueueSchemaName): IO[Unit] =
    PgSession.open[IO](db).use(QueueSchema.migrate[IO](_, s)).map {
      case Right(r) => assertEquals(r.report.outcome, ApplyReport.Outcome.Completed)
      case Left(e)  => fail(s"the migrations of $s failed: $e")
    }

  test("a schema name: a plain lowercase identifier, else refused saying why") {
    assertEquals(QueueSchemaName.from("billing_queue").map(_.name), Right("billing_queue"))
    assertEquals(QueueSchemaName.from("_q2").map(_.channel), Right("_q2_jobs"))
    assertEquals(QueueSchemaName.default.name, "weir")
    def refused(name: String): String =
      QueueSchemaName.from(name).fold(_.getMessage, s => fail(s"$s accepted"))
    assertEquals(
      refused("Jobs"),
      "queue schema 'Jobs' is not a plain lowercase SQL identifier: use a-z, 0-9 and _, starting with a letter or _ (e.g. jobs, billing_queue)"
    )
    assert(refused("billing-queue").contains("not a plain lowercase SQL identifier"))
    assert(refused("1jobs").contains("not a plain lowercase SQL identifier"))
    assert(refused("jobs; DROP TABLE x").contains("not a plain lowercase SQL identifier"))
    assertEquals(refused(""), "queue schema must not be empty")
    assert(refused("select").contains("is a keyword PostgreSQL reserves"))
    assert(refused("user").contains("is a keyword PostgreSQL reserves"))
    assert(refused("pg_jobs").contains("reserved for PostgreSQL's own schemas"))
    assert(refused("information_schema").contains("reserved for PostgreSQL's own schemas"))
    assert(refused("a" * 59).contains("longer than 58 characters"))
    assert(QueueSchemaName.from("a" * 58).isRight)
    assert(QueueSchemaName.from("Jobs").left.exists(_.isInstanceOf[ConfigError.Invalid]))
  }

  test("two schemas in one database: enqueued from Scala and SQL, each worker claims its own") {
    for
      db <- TestPg.database("schemas")
      _ <- migrated(db, jobs) >> migrated(db, billing)
      noWeir <- long(db, "SELECT count(*) FROM pg_namespace WHERE nspname = 'weir'")
      records <- long(
        db,
        "SELECT (SELECT count(*) FROM jobs.migrations) * 100 + (SELECT count(*) FROM billing_queue.migrations)"
      )
      heard <- (
        Notifications.resource(db, jobs.channel),
        Notifications.resource(db, billing.channel)
      ).tupled.use { (toJobs, toBilling) =>
        for
          _ <- PgSession.open[IO](db).use { s =>
            Enqueue.one(s, NewJob("j-one"), jobs) >>
              Enqueue.many(s, Vector(NewJob("j-many-1"), NewJob("j-many-2")), jobs) >>
              Enqueue.one(s, NewJob("b-one"), billing) >>
              Enqueue.many(s, Vector(NewJob("b-many")).map(_.withUniqueKey("u")), billing)
          }
          _ <- sql(db)(c => JdbcEnqueue.direct.one(c, NewJob("j-jdbc"), jobs))
          _ <- sql(db)(c =>
            Jdbc.prepared(
              c,
              """SELECT jobs.enqueue('default', 'j-sql'), billing_queue.enqueue('default', 'b-sql'),
                |       (SELECT job_id FROM billing_queue.enqueue_outcome('default', 'b-key', unique_key => 'u'))""".stripMargin
            )(_.execute())
          )
          j <- toJobs.upTo
          b <- toBilling.upTo
        yield (j.size, b.size)
      }
      // The unique key 'u' taken in billing_queue only: free in jobs.
      free <- sql(db)(c => JdbcEnqueue.direct.one(c, NewJob("j-key").withUniqueKey("u"), jobs))
      ran <- (run(db, jobs), run(db, billing)).parTupled
      completed <- long(
        db,
        """SELECT (SELECT count(*) FROM jobs.jobs WHERE state = 'completed') * 100
          |     + (SELECT count(*) FROM billing_queue.jobs WHERE state = 'completed')""".stripMargin
      )
    yield
      assertEquals(noWeir, 0L)
      assertEquals(records, QueueSchema.files.size * 101L)
      // Each channel heard its own schema's commits only: Scala (3 calls / 2) and SQL (1 / 1).
      assertEquals(heard, (4, 3))
      assert(free.isNew)
      assertEquals(
        ran._1.sorted,
        Vector("j-jdbc", "j-key", "j-many-1", "j-many-2", "j-one", "j-sql")
      )
      assertEquals(ran._2.sorted, Vector("b-many", "b-one", "b-sql"))
      assertEquals(completed, 6 * 100L + 3)
  }

  // A worker of `s` run until its queue is empty, its `*-one` job held 2.5 s so that its heartbeat
  // and reaper run (every second) and its scheduler reads the schedules; the payloads it handled.
  // Its upkeep's errors (a statement on a schema that is not there) fail the test.
  private def run(db: PgTarget, s: QueueSchemaName): IO[Vector[String]] =
    (Ref.of[IO, Vector[String]](Vector.empty), Ref.of[IO, Vector[WorkerEvent]](Vector.empty)).tupled
      .flatMap { (seen, errors) =>
        Worker
          .resource[IO](db, quickQueue().withSchema(s), smallEngine)
          .use { worker =>
            val upkeep = worker.events
              .collect { case e: WorkerEvent.UpkeepError => e }
              .evalMap(e => errors.update(_ :+ e))
              .compile
              .drain
            val handle = (job: Job) =>
              IO.sleep(2500.millis).whenA(job.payload.endsWith("-one")) >>
                seen.update(_ :+ job.payload)
            upkeep.background.surround(worker.run(handle, untilEmpty = true))
          }
          .flatMap(report =>
            (seen.get, errors.get).flatMapN { (handled, failed) =>
              IO(assertEquals((report.lostConnections, failed), (0L, Vector.empty))).as(handled)
            }
          )
      }

  test("admin, schedules, probe, maintenance and the test kit read and write their own schema") {
    for
      db <- TestPg.database("schemasadmin")
      _ <- migrated(db, jobs) >> migrated(db, billing)
      result <- PgSession.open[IO](db).use { s =>
        for
          id <- Enqueue.one(s, NewJob("x"), jobs).map(_.id)
          _ <- Enqueue.one(s, NewJob("y"), billing)
          schedule <- IO.fromEither(Schedule.every("hourly", weir.PositiveDuration.hours(1), "p"))
          _ <- Schedules.add(s, schedule, billing)
          listed <- (Schedules.list(s, jobs), Schedules.list(s, billing)).tupled
          stats <- (QueueAdmin.stats(s, None, jobs), QueueAdmin.stats(s, None, billing)).tupled
          cancelled <- QueueAdmin.cancel(s, Seq(id), jobs)
          tally <- (
            QueueProbe.tally(s, "default", jobs),
            QueueProbe.tally(s, "default", billing)
          ).tupled
          drained <- QueueTestKit.drain(s, (_: Job) => IO.unit, schema = billing)
          paused <- QueueAdmin.pause(s, "default", billing)
          pausedIn <- (QueueAdmin.paused(s, jobs), QueueAdmin.paused(s, billing)).tupled
          swept <- s.withConnection(c => Maintenance.sweep(c, 0.seconds, 10, false, billing))
          checked <- (QueueSchema.check(s, jobs), QueueSchema.check(s)).tupled
        yield (listed, stats, paused, pausedIn, cancelled, tally, drained, swept, checked)
      }
    yield
      val (listed, stats, paused, pausedIn, cancelled, tally, drained, swept, checked) = result
      assertEquals((listed._1.size, listed._2.map(_.schedule.name)), (0, Vector("hourly")))
      assertEquals(
        (stats._1.count(JobState.Available), stats._2.count(JobState.Available)),
        (1L, 1L)
      )
      assert(paused.isRight, paused)
      assertEquals((pausedIn._1.size, pausedIn._2.map(_._1)), (0, Vector("default")))
      assertEquals(cancelled.size, 1)
      assertEquals((tally._1.jobs, tally._2.jobs), (1L, 1L))
      assertEquals(drained.map(_._1.payload), Vector("y"))
      assertEquals(swept, 1L)
      assertEquals(checked._1, Right(()))
      assert(checked._2.left.exists(_.getMessage.contains("no table weir.jobs")), checked._2)
  }

  test("the default schema: the checksums recorded are the files' as shipped, as before") {
    // The SHA-256 of each migration as weir has always recorded it (0001-0007 before this change).
    val shipped = Map(
      "0001_weir_jobs.sql" -> "554b7827da181386fabe287920ecfa5be303774f1f491e06aef0abf06c9844c3",
      "0002_weir_stable_plans.sql" -> "4ce4bee3ae52dcb419cacae52a0b365ecc3882533691c903585cd8f7ddac3b0b",
      "0003_weir_job_runs.sql" -> "1814872c4a34681d9f5ed401c502dfd99b2352365da127927dfb3a6aaffc6d79",
      "0004_weir_job_kinds.sql" -> "e44b35d2aa50ccbd250f3ec59072d6c4d1cd74b3b24879a7df48935a5523bdf4",
      "0005_weir_queue_pause.sql" -> "31fa1e04718190cd7610b7a284839f3dd979aee1bb7871df4eeee6006ed5bf46",
      "0006_weir_schedules.sql" -> "18457c6d92cdcd8e02cbd74822f0cc405b1eb3cc55a1d1031fad0d70093dada2",
      "0007_weir_reliability.sql" -> "fd703223759c0c3c318c1808a32623fd67b21e5e0bb73d4e86f6d00a0383ce97"
    )
    val before = Migrations.Source.Classpath(QueueSchema.resourceDir, QueueSchema.files.take(7))
    for
      db <- TestPg.database("schemadefault")
      // A database migrated as earlier versions did (the generic migrations, files as shipped).
      old <- PgSession.open[IO](db).use(Migrations.migrate[IO](_, before))
      again <- PgSession.open[IO](db).use(QueueSchema.migrate[IO])
      // Another queue beside it leaves weir's record alone.
      _ <- migrated(db, jobs)
      recorded <- sql(db)(c =>
        Jdbc.prepared(c, "SELECT name, sha256 FROM weir.migrations ORDER BY name")(s =>
          Jdbc.rows(s)(r => r.getString(1) -> r.getString(2))
        )
      )
      inJobs <- long(db, "SELECT count(*) FROM jobs.migrations")
      enqueued <- PgSession.open[IO](db).use(Enqueue.one(_, NewJob("plain")))
      rows <- long(db, s"SELECT count(*) FROM weir.jobs WHERE id = ${enqueued.id}")
    yield
      assertEquals(old.map(_.report.outcome), Right(ApplyReport.Outcome.Completed))
      assertEquals(
        again.map(r => (r.report.outcome, r.report.files.map(_.name), r.alreadyApplied)),
        Right(
          (
            ApplyReport.Outcome.Completed,
            QueueSchema.files.drop(7),
            7
          )
        )
      )
      assertEquals(
        recorded.toMap -- QueueSchema.files.drop(7),
        shipped
      )
      assertEquals(recorded.size, QueueSchema.files.size)
      assertEquals(inJobs, QueueSchema.files.size.toLong)
      assertEquals(rows, 1L)
  }
