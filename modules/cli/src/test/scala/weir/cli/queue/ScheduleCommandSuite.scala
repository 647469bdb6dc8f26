package weir.cli.queue

import cats.effect.IO
import com.monovore.decline.Command
import java.time.Instant
import munit.CatsEffectSuite
import scala.concurrent.duration.*
import weir.PositiveDuration
import weir.cli.common.Exit
import weir.postgres.{PgSession, TestPg}
import weir.postgres.queue.{QueueSchema, Schedule, Schedules}

/** `weir queue schedule | schedules | unschedule`: bad options named (the cron's field too), a
  * schedule created, replaced, listed and removed on a real PostgreSQL ([[TestPg]]), removing one
  * that does not exist exit 1, and the list's table.
  */
class ScheduleCommandSuite extends CatsEffectSuite:

  override def munitIOTimeout: Duration = 2.minutes

  private val env = Map("PGHOST" -> "127.0.0.1", "PGUSER" -> "me")
  private val queue = Command("queue", "")(ScheduleCommand.opts)

  private def errors(args: String*): List[String] =
    queue.parse(args.toList, env).fold(_.errors, _ => Nil)

  test("bad options name what is wrong; the cron's error names its field") {
    assertEquals(
      errors("schedule", "n", "--cron", "61 * * * *", "--payload", "p"),
      List("--cron: cron \"61 * * * *\": minute 61 is out of range 0-59")
    )
    assertEquals(
      errors("schedule", "n", "--every", "1s", "--cron", "* * * * *", "--payload", "p"),
      List("give --every or --cron, not both")
    )
    assertEquals(
      errors("schedule", "n", "--payload", "p"),
      List("--every DURATION or --cron EXPR is required")
    )
    assertEquals(
      errors("schedule", "n", "--every", "0s", "--payload", "p"),
      List("--every: the interval must be positive, got 0")
    )
    assertEquals(
      errors("schedule", "n", "--every", "1m", "--payload", "p", "--kind", " "),
      List("--kind must not be empty: give the kind of job its handlers know, e.g. --kind report")
    )
    assertEquals(
      errors("schedule", "n", "--cron", "0 3 * 13 *", "--payload", "p", "--kind", "r"),
      List("--cron: cron \"0 3 * 13 *\": month 13 is out of range 1-12")
    )
    assertEquals(errors("schedule", "n", "--every", "1m", "--payload", "p"), Nil)
    assertEquals(errors("schedule", "n", "--every", "1m", "--payload", "p", "--kind", "r"), Nil)
    assertEquals(errors("unschedule", "n"), Nil)
  }

  test("schedule, replace, list, unschedule; unscheduling a missing one exits 1") {
    for
      db <- TestPg.database("schedcli")
      _ <- PgSession.open[IO](db).use(QueueSchema.migrate[IO])
      nightly = Schedule
        .cron("nightly", "0 3 * * *", "r")
        .flatMap(_.withQueue("reports"))
        .toOption
        .get
      created <- ScheduleCommand.add(db, nightly.withKind("report").toOption.get, json = false)
      replaced <- ScheduleCommand.add(db, nightly.withPayload("r2"), json = true)
      listedCode <- ScheduleCommand.list(db, json = false)
      listed <- PgSession.open[IO](db).use(Schedules.list[IO])
      removed <- ScheduleCommand.remove(db, "nightly")
      missing <- ScheduleCommand.remove(db, "nightly")
      left <- PgSession.open[IO](db).use(Schedules.list[IO])
    yield
      assertEquals((created, replaced, listedCode, removed), (Exit.Ok, Exit.Ok, Exit.Ok, Exit.Ok))
      assertEquals(missing, Exit.Failed)
      assertEquals(
        listed.map(l => (l.schedule.name, l.schedule.payload, l.schedule.kind)),
        Vector(("nightly", "r2", "default"))
      )
      assertEquals(left, Vector.empty)
  }

  test("the list: one row per schedule, columns aligned; none says how to add one") {
    val now = Instant.parse("2026-11-25T14:30:12Z")
    val every = Schedule.every("beat", PositiveDuration.seconds(30), "p").toOption.get
    val cron = Schedule
      .cron("nightly", "0 3 * * *", "r")
      .flatMap(_.withQueue("reports"))
      .flatMap(_.withKind("report"))
      .toOption
      .get
    val rows = Vector(
      Schedules.Listed(
        every,
        Some(Instant.parse("2026-11-25T14:30:00Z")),
        Some(42L),
        every.spec.next(now),
        now
      ),
      Schedules.Listed(cron, None, None, cron.spec.next(now), now)
    )
    assertEquals(
      ScheduleRender.listed(rows, json = false),
      """NAME     QUEUE    KIND     WHEN            NEXT DUE              LAST PERIOD ENQUEUED
        |beat     default  default  every 30s       2026-11-25T14:30:30Z  2026-11-25T14:30:00Z (job 42)
        |nightly  reports  report   cron 0 3 * * *  2026-11-26T03:00:00Z  -""".stripMargin
    )
    assert(ScheduleRender.listed(Vector.empty, json = false).startsWith("no schedules"))
  }
