package weir.postgres.queue

import java.time.{Instant, LocalDateTime, ZoneOffset}
import java.time.temporal.ChronoUnit
import weir.ConfigError

/** A standard 5-field cron expression (`minute hour day-of-month month day-of-week`, as crontab(5)
  * reads it), evaluated in UTC to the minute. Each field is `*`, a value, a range `a-b`, a step
  * (`a-b/n`, `a/n`, or `*` followed by `/n`), or a comma-separated list of those; months may be
  * written `JAN`-`DEC` and days of the week `SUN`-`SAT` (0 and 7 are both Sunday). As in cron, when
  * both day fields are restricted (neither starts with `*`) a day matches if either does. The
  * macros `@yearly` (`@annually`), `@monthly`, `@weekly`, `@daily` (`@midnight`) and `@hourly`
  * stand for their usual expressions. Why weir has its own: docs/adr/0008-cron.md.
  *
  * Values are immutable and safe to share between fibers.
  */
final class Cron private (
    /** The expression as given (trimmed). */
    val expression: String,
    private val fields: Cron.Fields
):
  import fields.*

  /** The latest fire time at or before `at` (a whole minute), or `None` when there is none in the
    * four years before (an expression such as `0 0 30 2 *` never fires).
    */
  def previous(at: Instant): Option[Instant] =
    var t = LocalDateTime.ofInstant(at, ZoneOffset.UTC).truncatedTo(ChronoUnit.MINUTES)
    val limit = t.minusYears(Cron.searchYears)
    var found = false
    while !found && t.isAfter(limit) do
      if !months.has(t.getMonthValue) then
        t = t.withDayOfMonth(1).truncatedTo(ChronoUnit.DAYS).minusMinutes(1)
      else if !day(t) then t = t.truncatedTo(ChronoUnit.DAYS).minusMinutes(1)
      else if !hours.has(t.getHour) then t = t.truncatedTo(ChronoUnit.HOURS).minusMinutes(1)
      else if !minutes.has(t.getMinute) then t = t.minusMinutes(1)
      else found = true
    Option.when(found)(t.toInstant(ZoneOffset.UTC))

  /** The first fire time strictly after `after`, or `None` when there is none in the next four
    * years.
    */
  def next(after: Instant): Option[Instant] =
    var t =
      LocalDateTime.ofInstant(after, ZoneOffset.UTC).truncatedTo(ChronoUnit.MINUTES).plusMinutes(1)
    val limit = t.plusYears(Cron.searchYears)
    var found = false
    while !found && t.isBefore(limit) do
      if !months.has(t.getMonthValue) then
        t = t.withDayOfMonth(1).truncatedTo(ChronoUnit.DAYS).plusMonths(1)
      else if !day(t) then t = t.truncatedTo(ChronoUnit.DAYS).plusDays(1)
      else if !hours.has(t.getHour) then t = t.truncatedTo(ChronoUnit.HOURS).plusHours(1)
      else if !minutes.has(t.getMinute) then t = t.plusMinutes(1)
      else found = true
    Option.when(found)(t.toInstant(ZoneOffset.UTC))

  // crontab(5): with both day fields restricted, either may match; otherwise both must.
  private def day(t: LocalDateTime): Boolean =
    val dom = daysOfMonth.has(t.getDayOfMonth)
    val dow = daysOfWeek.has(t.getDayOfWeek.getValue % 7)
    if domStar || dowStar then dom && dow else dom || dow

  override def toString: String = expression
  override def equals(other: Any): Boolean = other match
    case c: Cron => c.expression == expression
    case _       => false
  override def hashCode: Int = expression.hashCode

object Cron:

  // Searches stop after this many years (a leap day every four years is the longest gap).
  private val searchYears = 5L

  /** The set of values one field allows, as bits. */
  private[queue] final case class Bits(bits: Long):
    def has(v: Int): Boolean = (bits & (1L << v)) != 0

  private final case class Fields(
      minutes: Bits,
      hours: Bits,
      daysOfMonth: Bits,
      months: Bits,
      daysOfWeek: Bits,
      domStar: Boolean,
      dowStar: Boolean
  )

  private val macros = Map(
    "@yearly" -> "0 0 1 1 *",
    "@annually" -> "0 0 1 1 *",
    "@monthly" -> "0 0 1 * *",
    "@weekly" -> "0 0 * * 0",
    "@daily" -> "0 0 * * *",
    "@midnight" -> "0 0 * * *",
    "@hourly" -> "0 * * * *"
  )

  /** `expression` parsed; `Left(ConfigError.Invalid("cron", ...))` whose message names the
    * expression and the field at fault, for example `cron "61 * * * *": minute 61 is out of range
    * 0-59`.
    */
  def parse(expression: String): Either[ConfigError, Cron] =
    val trimmed = expression.trim
    def invalid(reason: String) = ConfigError.Invalid("cron", s"\"$trimmed\": $reason")
    val text = macros.getOrElse(trimmed.toLowerCase, trimmed)
    val parts = text.split("\\s+").toList.filter(_.nonEmpty)
    parts match
      case List(mi, h, dom, mo, dow) =>
        val parsed = for
          minutes <- CronField.minute.parse(mi)
          hours <- CronField.hour.parse(h)
          daysOfMonth <- CronField.dayOfMonth.parse(dom)
          months <- CronField.month.parse(mo)
          daysOfWeek <- CronField.dayOfWeek.parse(dow)
        yield Fields(
          minutes,
          hours,
          daysOfMonth,
          months,
          daysOfWeek,
          dom.startsWith("*"),
          dow.startsWith("*")
        )
        parsed.left.map(invalid).map(new Cron(trimmed, _))
      case _ =>
        Left(
          invalid(
            s"expected 5 fields (minute hour day-of-month month day-of-week), got ${parts.size}"
          )
        )
