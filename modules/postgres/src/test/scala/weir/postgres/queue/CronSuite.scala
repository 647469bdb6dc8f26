package weir.postgres.queue

import java.time.Instant
import munit.FunSuite

/** [[Cron]]: parsing (each error naming its field) and fire times before and after an instant,
  * exact to the minute, in UTC.
  */
class CronSuite extends FunSuite:

  private def cron(text: String): Cron = Cron.parse(text).fold(e => fail(e.getMessage), identity)
  private def at(text: String): Instant = Instant.parse(text)
  private def error(text: String): String =
    Cron.parse(text).fold(_.getMessage, c => fail(s"\"$text\" parsed as $c"))

  test("errors name the expression and the field at fault") {
    assertEquals(error("61 * * * *"), "cron \"61 * * * *\": minute 61 is out of range 0-59")
    assertEquals(error("* 24 * * *"), "cron \"* 24 * * *\": hour 24 is out of range 0-23")
    assertEquals(error("* * 0 * *"), "cron \"* * 0 * *\": day-of-month 0 is out of range 1-31")
    assertEquals(error("* * * 13 *"), "cron \"* * * 13 *\": month 13 is out of range 1-12")
    assertEquals(error("* * * * 8"), "cron \"* * * * 8\": day-of-week 8 is out of range 0-7")
    assertEquals(
      error("* * * FOO *"),
      "cron \"* * * FOO *\": month \"FOO\" is not a number or one of JAN FEB MAR APR MAY JUN JUL AUG SEP OCT NOV DEC"
    )
    assertEquals(
      error("*/0 * * * *"),
      "cron \"*/0 * * * *\": minute step \"0\" must be a positive number"
    )
    assertEquals(error("* 5-2 * * *"), "cron \"* 5-2 * * *\": hour range 5-2 goes backwards")
    assertEquals(
      error("1,,2 * * * *"),
      "cron \"1,,2 * * * *\": minute has an empty item in its list"
    )
    assertEquals(
      error("* * * *"),
      "cron \"* * * *\": expected 5 fields (minute hour day-of-month month day-of-week), got 4"
    )
    assertEquals(Cron.parse("61 * * * *").left.map(_.setting), Left("cron"))
  }

  test("every minute: previous is the minute itself, next the one after") {
    val c = cron("* * * * *")
    assertEquals(c.previous(at("2026-11-25T14:30:59.999Z")), Some(at("2026-11-25T14:30:00Z")))
    assertEquals(c.previous(at("2026-11-25T14:30:00Z")), Some(at("2026-11-25T14:30:00Z")))
    assertEquals(c.next(at("2026-11-25T14:30:00Z")), Some(at("2026-11-25T14:31:00Z")))
  }

  test("steps, ranges and lists") {
    val c = cron("*/15 9-17 * * *")
    assertEquals(c.previous(at("2026-11-25T14:31:00Z")), Some(at("2026-11-25T14:30:00Z")))
    assertEquals(c.next(at("2026-11-25T17:45:00Z")), Some(at("2026-11-26T09:00:00Z")))
    assertEquals(c.previous(at("2026-11-25T08:59:00Z")), Some(at("2026-11-24T17:45:00Z")))
    val l = cron("5,10-12/2,50/5 * * * *")
    val minutes = Iterator
      .iterate(l.next(at("2026-01-01T00:00:00Z")))(_.flatMap(l.next))
      .take(7)
      .flatten
      .map(_.toString.substring(14, 16).toInt)
      .toList
    assertEquals(minutes, List(5, 10, 12, 50, 55, 5, 10))
  }

  test("names, Sunday as 0 or 7, and the either-day rule of crontab") {
    // 2026-11-25 is a Wednesday.
    val weekdays = cron("0 9 * * MON-FRI")
    assertEquals(weekdays.next(at("2026-11-27T09:00:00Z")), Some(at("2026-11-30T09:00:00Z")))
    assertEquals(weekdays.previous(at("2026-11-29T12:00:00Z")), Some(at("2026-11-27T09:00:00Z")))
    assertEquals(
      cron("0 0 * * 7").next(at("2026-11-25T00:00:00Z")),
      Some(at("2026-11-29T00:00:00Z"))
    )
    assertEquals(
      cron("0 0 * * sun").next(at("2026-11-25T00:00:00Z")),
      Some(at("2026-11-29T00:00:00Z"))
    )
    // Both day fields restricted: the 1st of the month or any Friday.
    val either = cron("0 0 1 * FRI")
    assertEquals(either.next(at("2026-11-25T00:00:00Z")), Some(at("2026-11-27T00:00:00Z")))
    assertEquals(either.next(at("2026-11-27T00:00:00Z")), Some(at("2026-12-01T00:00:00Z")))
    // Only the day of the month restricted: both must match (every day-of-week).
    assertEquals(
      cron("0 0 1 * *").next(at("2026-11-25T00:00:00Z")),
      Some(at("2026-12-01T00:00:00Z"))
    )
  }

  test("months of different lengths, leap days, and expressions that never fire") {
    val daily = cron("30 2 * * *")
    assertEquals(daily.previous(at("2026-03-01T01:00:00Z")), Some(at("2026-02-28T02:30:00Z")))
    assertEquals(
      cron("0 0 31 * *").next(at("2026-02-01T00:00:00Z")),
      Some(at("2026-03-31T00:00:00Z"))
    )
    val leap = cron("0 12 29 FEB *")
    assertEquals(leap.next(at("2026-11-25T00:00:00Z")), Some(at("2028-02-29T12:00:00Z")))
    assertEquals(leap.previous(at("2026-11-25T00:00:00Z")), Some(at("2024-02-29T12:00:00Z")))
    assertEquals(cron("0 0 30 2 *").next(at("2026-11-25T00:00:00Z")), None)
    assertEquals(cron("0 0 30 2 *").previous(at("2026-11-25T00:00:00Z")), None)
  }

  test("macros") {
    assertEquals(cron("@hourly").next(at("2026-11-25T14:30:00Z")), Some(at("2026-11-25T15:00:00Z")))
    assertEquals(
      cron("@daily").previous(at("2026-11-25T14:30:00Z")),
      Some(at("2026-11-25T00:00:00Z"))
    )
    assertEquals(cron("@weekly").next(at("2026-11-25T14:30:00Z")), Some(at("2026-11-29T00:00:00Z")))
    assertEquals(
      cron("@monthly").next(at("2026-11-25T14:30:00Z")),
      Some(at("2026-12-01T00:00:00Z"))
    )
    assertEquals(
      cron("@yearly").previous(at("2026-11-25T14:30:00Z")),
      Some(at("2026-01-01T00:00:00Z"))
    )
  }

  test("interval periods are aligned to the epoch; next is one interval on") {
    val every = Schedule.Spec.Every(weir.PositiveDuration.minutes(15))
    assertEquals(every.current(at("2026-11-25T14:44:59.999Z")), Some(at("2026-11-25T14:30:00Z")))
    assertEquals(every.current(at("2026-11-25T14:45:00Z")), Some(at("2026-11-25T14:45:00Z")))
    assertEquals(every.next(at("2026-11-25T14:45:00Z")), Some(at("2026-11-25T15:00:00Z")))
    val sevenSeconds = Schedule.Spec.Every(weir.PositiveDuration.seconds(7))
    assertEquals(sevenSeconds.current(at("1970-01-01T00:00:20Z")), Some(at("1970-01-01T00:00:14Z")))
    assertEquals(Schedule.Spec.showMillis(90000), "90s")
    assertEquals(Schedule.Spec.showMillis(3600000), "1h")
    assertEquals(Schedule.Spec.showMillis(250), "250ms")
  }

  test("schedules validate their name and interval") {
    assertEquals(
      Schedule.every("", weir.PositiveDuration.seconds(1), "x").left.map(_.getMessage),
      Left("schedule name must not be empty")
    )
    val micro = weir.PositiveDuration.from(
      scala.concurrent.duration.FiniteDuration(1500, java.util.concurrent.TimeUnit.MICROSECONDS)
    )
    assertEquals(
      micro.flatMap(Schedule.every("a", _, "x")).left.map(_.getMessage),
      Left("every must be a whole number of milliseconds, got 1500 microseconds")
    )
    assertEquals(
      Schedule.cron("a", "61 * * * *", "x").left.map(_.getMessage),
      Left("cron \"61 * * * *\": minute 61 is out of range 0-59")
    )
  }
