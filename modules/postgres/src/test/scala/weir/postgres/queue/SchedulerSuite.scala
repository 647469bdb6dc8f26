package weir.postgres.queue

import java.time.Instant
import munit.FunSuite
import weir.PositiveDuration

/** The scheduler's pure part: which periods are due at an instant, given what it read (the clock is
  * a parameter: no waiting, exact instants).
  */
class SchedulerSuite extends FunSuite:

  private def at(text: String): Instant = Instant.parse(text)

  private def entry(
      name: String,
      spec: Schedule,
      since: String,
      last: Option[String]
  ): Scheduler.Entry =
    val named = Schedule.of(name, spec.spec, spec.payload).toOption.get
    Scheduler.Entry(Schedules.Stored(named, at(since), last.map(at)))

  private val minute = Schedule.every("m", PositiveDuration.minutes(1), "x").toOption.get
  private val nightly = Schedule.cron("n", "0 3 * * *", "x").toOption.get

  test(
    "due: the current period, once it is after the last one settled and not before the schedule"
  ) {
    val now = at("2026-11-25T14:30:12Z")
    val entries = List(
      // Created long ago, never enqueued: the current minute only (no backfill).
      entry("b-fresh", minute, "2026-01-01T00:00:00Z", None),
      // The current minute already settled: nothing.
      entry("c-settled", minute, "2026-01-01T00:00:00Z", Some("2026-11-25T14:30:00Z")),
      // The previous minute settled: the current one.
      entry("a-behind", minute, "2026-01-01T00:00:00Z", Some("2026-11-25T14:29:00Z")),
      // Created after the current minute started: nothing until the next.
      entry("d-new", minute, "2026-11-25T14:30:05Z", None),
      // Cron: today's 03:00 is the current period; created yesterday, never enqueued.
      entry("e-nightly", nightly, "2026-11-24T12:00:00Z", None),
      // Cron created at 14:00 today: 03:00 started before it; nothing today.
      entry("f-nightly-new", nightly, "2026-11-25T14:00:00Z", None)
    )
    assertEquals(
      Scheduler.due(entries, now),
      Vector(
        "a-behind" -> at("2026-11-25T14:30:00Z"),
        "b-fresh" -> at("2026-11-25T14:30:00Z"),
        "e-nightly" -> at("2026-11-25T03:00:00Z")
      )
    )
  }

  test("due after a late pass: every period started since the previous pass, in order; no more") {
    val now = at("2026-11-25T14:33:12Z")
    val since = Some(at("2026-11-25T14:30:01Z"))
    val entries = List(
      // Settled at 14:30 when the previous pass ran; the pass is late: 14:31, 14:32 and 14:33.
      entry("a-late", minute, "2026-01-01T00:00:00Z", Some("2026-11-25T14:30:00Z")),
      // Another worker already enqueued 14:32: only 14:33 is after it.
      entry("b-caught-up", minute, "2026-01-01T00:00:00Z", Some("2026-11-25T14:32:00Z")),
      // Created at 14:31:30: 14:32 and 14:33 only.
      entry("c-new", minute, "2026-11-25T14:31:30Z", None)
    )
    assertEquals(
      Scheduler.due(entries, now, since),
      Vector(
        "a-late" -> at("2026-11-25T14:31:00Z"),
        "a-late" -> at("2026-11-25T14:32:00Z"),
        "a-late" -> at("2026-11-25T14:33:00Z"),
        "b-caught-up" -> at("2026-11-25T14:33:00Z"),
        "c-new" -> at("2026-11-25T14:32:00Z"),
        "c-new" -> at("2026-11-25T14:33:00Z")
      )
    )
    // A first pass (no previous one): the current period only, as before.
    assertEquals(
      Scheduler.due(entries.take(1), now),
      Vector("a-late" -> at("2026-11-25T14:33:00Z"))
    )
    // A pass a week late enqueues at most `catchUp` periods of a schedule, then the current one.
    val never = entry("z", minute, "2026-01-01T00:00:00Z", None)
    val week = Scheduler.due(List(never), now, Some(at("2026-11-18T14:30:01Z")))
    assertEquals(week.size, Scheduler.catchUp + 1)
    assertEquals(week.head, "z" -> at("2026-11-18T14:31:00Z"))
    assertEquals(week.last, "z" -> at("2026-11-25T14:33:00Z"))
  }
