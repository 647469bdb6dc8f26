package weir.postgres.queue

import cats.effect.IO
import cats.syntax.all.*
import java.time.Instant
import munit.CatsEffectSuite
import scala.concurrent.duration.*
import weir.postgres.{PgSession, PgTarget}
import weir.{Concurrency, PositiveDuration}

/** Periodic jobs on a real PostgreSQL: [[Schedules]] kept and listed, one job per period however
  * many schedulers are due at once, a period missed by a stopped worker enqueued once by the next,
  * and two [[Worker]]s over several periods. Everything asserted is what the server recorded.
  */
class SchedulesSuite extends CatsEffectSuite:
  import QueueDbs.*

  override def munitIOTimeout: Duration = 2.minutes

  private def ok[A](e: Either[weir.ConfigError, A]): A = e.fold(x => fail(x.getMessage), identity)

  private def add(db: PgTarget, s: Schedule): IO[Boolean] =
    PgSession.open[IO](db).use(Schedules.add(_, s))

  private def periods(db: PgTarget, name: String): IO[Vector[(Instant, Long)]] =
    sql(db)(c =>
      Jdbc.prepared(
        c,
        "SELECT period_start, job_id FROM weir.schedule_periods WHERE name = ? ORDER BY period_start"
      ) { s =>
        s.setString(1, name)
        Jdbc.rows(s)(r => (r.getTimestamp(1).toInstant, r.getLong(2)))
      }
    )

  private def shown(o: Scheduler.Outcome): String = o match
    case Scheduler.Outcome.Enqueued(_) => "Enqueued"
    case other                         => other.toString

  private def pass(db: PgTarget, at: Instant): IO[Vector[(String, Instant, Scheduler.Outcome)]] =
    sql(db)(Scheduler.passAt(_, at))

  test("add creates or replaces, list shows the last period and the next, remove says if it did") {
    for
      db <- fresh("schedadd")
      hourly = ok(Schedule.every("hourly", PositiveDuration.hours(1), """{"report":1}"""))
      nightly = ok(ok(Schedule.cron("nightly", "0 3 * * *", "n")).withQueue("reports"))
      created <- add(db, hourly)
      _ <- add(db, nightly)
      replaced <- add(db, hourly.withPayload("again"))
      _ <- sql(db)(c =>
        Jdbc.prepared(c, "UPDATE weir.schedules SET updated_at = '2000-01-01'")(_.executeUpdate())
      )
      outcomes <- pass(db, Instant.parse("2026-11-25T14:30:00Z"))
      listed <- PgSession.open[IO](db).use(Schedules.list[IO])
      removed <- PgSession.open[IO](db).use(Schedules.remove(_, "hourly"))
      again <- PgSession.open[IO](db).use(Schedules.remove(_, "hourly"))
      left <- PgSession.open[IO](db).use(Schedules.list[IO])
      orphans <- long(db, "SELECT count(*) FROM weir.schedule_periods WHERE name = 'hourly'")
      payloads <- sql(db)(c =>
        Jdbc.prepared(c, "SELECT queue || ':' || payload FROM weir.jobs ORDER BY queue")(s =>
          Jdbc.rows(s)(_.getString(1))
        )
      )
    yield
      assertEquals((created, replaced), (false, true))
      assertEquals(
        outcomes.map((n, p, o) => (n, p.toString, shown(o))),
        Vector(
          ("hourly", "2026-11-25T14:00:00Z", "Enqueued"),
          ("nightly", "2026-11-25T03:00:00Z", "Enqueued")
        )
      )
      assertEquals(listed.map(_.schedule.name), Vector("hourly", "nightly"))
      assertEquals(listed.map(_.schedule.payload), Vector("again", "n"))
      assertEquals(listed.map(_.schedule.queue), Vector("default", "reports"))
      assertEquals(listed.map(_.schedule.spec.show), Vector("every 1h", "cron 0 3 * * *"))
      assertEquals(
        listed.flatMap(_.lastPeriod).map(_.toString),
        Vector("2026-11-25T14:00:00Z", "2026-11-25T03:00:00Z")
      )
      assertEquals(listed.flatMap(_.lastJob).size, 2)
      listed.foreach(l => assert(l.nextDue.exists(_.isAfter(l.now)), l))
      assertEquals((removed, again), (true, false))
      assertEquals(left.map(_.schedule.name), Vector("nightly"))
      assertEquals(orphans, 0L)
      assertEquals(payloads, Vector("default:again", "reports:n"))
  }

  test("a new schedule enqueues no period that started before it; a period not started is early") {
    for
      db <- fresh("schedsince")
      _ <- add(db, ok(Schedule.every("s", PositiveDuration.hours(1), "x")))
      now <- long(db, "SELECT (extract(epoch FROM now()) * 1000)::bigint").map(Instant.ofEpochMilli)
      before <- pass(db, now)
      future <- sql(db)(c =>
        Scheduler.enqueue(
          c,
          Vector("s" -> now.plusSeconds(3600).truncatedTo(java.time.temporal.ChronoUnit.HOURS))
        )
      )
      jobs <- long(db, "SELECT count(*) FROM weir.jobs")
    yield
      // The current hour started before the schedule: not due (unless it was created on the hour).
      assert(
        before.isEmpty || before.forall(
          _._2 == now.truncatedTo(java.time.temporal.ChronoUnit.HOURS)
        ),
        before
      )
      assertEquals(future.map(_._3), Vector(Scheduler.Outcome.Early))
      assertEquals(jobs, before.size.toLong)
  }

  test(
    "a scheduler stopped at a period's start: the next one enqueues it once; racing ones, once"
  ) {
    val t = Instant.parse("2026-11-25T10:00:00.250Z")
    val hour = t.truncatedTo(java.time.temporal.ChronoUnit.HOURS)
    for
      db <- fresh("schedkill")
      _ <- add(db, ok(Schedule.every("k", PositiveDuration.hours(1), "x")))
      _ <- sql(db)(c =>
        Jdbc.prepared(c, "UPDATE weir.schedules SET updated_at = '2000-01-01'")(_.executeUpdate())
      )
      // Worker A is cancelled in its pass (its statement cancelled, rolled back whole, or not sent).
      a <- pass(db, t).start
      _ <- a.cancel
      aFirst <- a.join.flatMap(_.fold(IO.pure(Vector.empty), IO.raiseError, identity))
      // Worker B's first pass in the same period, then A back: B's enqueues it, A's finds it taken.
      b <- pass(db, t.plusSeconds(60))
      aAgain <- pass(db, t.plusSeconds(120))
      afterKill <- periods(db, "k")
      // Twenty schedulers due at the next period at once.
      raced <- List.fill(20)(pass(db, t.plusSeconds(3600))).parSequence
      all <- periods(db, "k")
      jobs <- long(db, "SELECT count(*) FROM weir.jobs")
    yield
      assertEquals(afterKill.size, 1)
      assertEquals(afterKill.head._1, hour)
      // Whoever got there first (A, if its pass had gone through before the cancel), once.
      assertEquals(
        (aFirst ++ b ++ aAgain).map(o => (o._2, shown(o._3))),
        Vector(hour -> "Enqueued")
      )
      assertEquals(raced.flatten.count(_._3.isInstanceOf[Scheduler.Outcome.Enqueued]), 1)
      assertEquals(all.map(_._1), Vector(hour, hour.plusSeconds(3600)))
      assertEquals(all.map(_._2).distinct.size, 2)
      assertEquals(jobs, 2L)
  }

  test("two workers over several periods of a 1 s schedule: one job per period, no gap") {
    val name = "tick"
    val settings = QueueSettings.default.withPoll(PositiveDuration.millis(200))
    val engine = WorkerSettings.default.withConcurrency(Concurrency(4))
    for
      db <- fresh("schedworkers")
      _ <- add(
        db,
        ok(ok(Schedule.every(name, PositiveDuration.seconds(1), "t")).withQueue("ticks"))
      )
      // The workers work the default queue: the ticks' jobs stay in theirs, to be counted.
      _ <- (
        Worker.resource[IO](db, settings, engine, "w1"),
        Worker.resource[IO](db, settings, engine, "w2")
      ).tupled
        .use { (w1, w2) =>
          val enough =
            (IO.sleep(100.millis) >> periods(db, name).map(_.size >= 5)).iterateUntil(identity)
          (w1.run(_ => IO.unit), w2.run(_ => IO.unit)).parTupled.both(enough >> w1.stop >> w2.stop)
        }
      recorded <- periods(db, name)
      jobs <- sql(db)(c =>
        Jdbc.prepared(c, "SELECT id FROM weir.jobs WHERE queue = 'ticks' ORDER BY id")(s =>
          Jdbc.rows(s)(_.getLong(1))
        )
      )
    yield
      assert(recorded.size >= 5, recorded)
      val starts = recorded.map(_._1.toEpochMilli)
      assertEquals(starts.map(_ % 1000), starts.map(_ => 0L))
      assertEquals(starts.zip(starts.tail).map((a, b) => b - a).distinct, Vector(1000L))
      assertEquals(recorded.map(_._2).sorted, jobs)
  }

  test("a schedule's kind: stored, listed, and its periods' jobs are of it; empty refused") {
    for
      db <- fresh("schedkind")
      report = ok(ok(Schedule.every("r", PositiveDuration.hours(1), "p")).withKind("report"))
      plain = ok(Schedule.every("plain", PositiveDuration.hours(1), "p"))
      _ <- add(db, report)
      _ <- add(db, plain)
      _ <- sql(db)(c =>
        Jdbc.prepared(c, "UPDATE weir.schedules SET updated_at = '2000-01-01'")(_.executeUpdate())
      )
      outcomes <- pass(db, Instant.parse("2026-11-25T14:30:00Z"))
      listed <- PgSession.open[IO](db).use(Schedules.list[IO])
      reports <- long(db, "SELECT count(*) FROM weir.jobs WHERE kind = 'report'")
      defaults <- long(db, "SELECT count(*) FROM weir.jobs WHERE kind = 'default'")
    yield
      assertEquals(
        outcomes.map(o => (o._1, shown(o._3))),
        Vector("plain" -> "Enqueued", "r" -> "Enqueued")
      )
      assertEquals(
        listed.map(l => l.schedule.name -> l.schedule.kind),
        Vector("plain" -> "default", "r" -> "report")
      )
      assertEquals((reports, defaults), (1L, 1L))
      assert(report.withKind("").left.exists(_.getMessage.contains("job kind")))
  }

  test(
    "a worker whose scheduler waits on a lock across periods enqueues the ones it missed, in order"
  ) {
    val name = "stalled"
    val settings = QueueSettings.default.withPoll(PositiveDuration.millis(200))
    for
      db <- fresh("schedstall")
      _ <- add(
        db,
        ok(ok(Schedule.every(name, PositiveDuration.seconds(1), "t")).withQueue("ticks"))
      )
      _ <- Worker.resource[IO](db, settings, WorkerSettings.default, "w").use { w =>
        val after = (n: Int) =>
          (IO.sleep(50.millis) >> periods(db, name).map(_.size >= n)).iterateUntil(identity)
        // Every write to weir.jobs waits 3.5 s (the scheduler's calls among them), then goes on.
        val stall = PgSession.open[IO](db).use { s =>
          s.transaction(on = true) >> s.update("LOCK TABLE weir.jobs IN EXCLUSIVE MODE") >>
            IO.sleep(3500.millis) >> s.rollback
        }
        w.run(_ => IO.unit).both(after(1) >> stall >> after(7) >> w.stop).void
      }
      recorded <- periods(db, name)
    yield
      val starts = recorded.map(_._1.toEpochMilli)
      assertEquals(starts.zip(starts.tail).map((a, b) => b - a).distinct, Vector(1000L), starts)
  }
