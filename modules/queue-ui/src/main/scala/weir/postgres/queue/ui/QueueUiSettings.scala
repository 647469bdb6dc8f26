package weir.postgres.queue.ui

import scala.concurrent.duration.*
import weir.ConfigError
import weir.postgres.queue.QueueSchemaName

/** How [[QueueUi]] serves a queue: the schema it lives in, the token a browser must present (none:
  * anyone who reaches the routes may use them), whether actions are offered, the rows a list page
  * shows, the minutes the chart covers, how often the live parts of a page refresh, and how the
  * overview's counts are shared between requests.
  *
  * An immutable value: each `withX` returns a copy; those that can be given a wrong value validate
  * it and return `Left(ConfigError)` naming the setting.
  */
final class QueueUiSettings private (
    val schema: QueueSchemaName,
    val token: Option[String],
    val readOnly: Boolean,
    val pageSize: Int,
    val chartMinutes: Int,
    val refreshSeconds: Int,
    val overviewFresh: FiniteDuration,
    val overviewStale: FiniteDuration
):
  private def copy(
      schema: QueueSchemaName = schema,
      token: Option[String] = token,
      readOnly: Boolean = readOnly,
      pageSize: Int = pageSize,
      chartMinutes: Int = chartMinutes,
      refreshSeconds: Int = refreshSeconds,
      overviewFresh: FiniteDuration = overviewFresh,
      overviewStale: FiniteDuration = overviewStale
  ) = new QueueUiSettings(
    schema,
    token,
    readOnly,
    pageSize,
    chartMinutes,
    refreshSeconds,
    overviewFresh,
    overviewStale
  )

  /** The schema the queue lives in (default `weir`). */
  def withSchema(s: QueueSchemaName): QueueUiSettings = copy(schema = s)

  /** Requires `t` from every browser: its first request carries it (`?token=` or `Authorization:
    * Bearer`), then a session cookie stands for it. At least 16 characters, no spaces.
    */
  def withToken(t: String): Either[ConfigError, QueueUiSettings] =
    if t.length < QueueUiSettings.minTokenLength then
      Left(
        ConfigError.Invalid(
          "ui token",
          s"must be at least ${QueueUiSettings.minTokenLength} characters long, got ${t.length} (e.g. openssl rand -hex 16)"
        )
      )
    else if t.exists(c => c.isWhitespace || c.isControl) then
      Left(ConfigError.Invalid("ui token", "must not contain spaces or control characters"))
    else Right(copy(token = Some(t)))

  /** No token (the default): anyone who reaches the routes may use them. */
  def withoutToken: QueueUiSettings = copy(token = None)

  /** `true`: pages show no action, and every POST is refused with 403 (default `false`). */
  def withReadOnly(r: Boolean): QueueUiSettings = copy(readOnly = r)

  /** Jobs per list page, 1 to 500 (default 50). */
  def withPageSize(n: Int): Either[ConfigError, QueueUiSettings] =
    if n < 1 || n > 500 then Left(ConfigError.OutOfRange("ui page size", n.toString, "1..500"))
    else Right(copy(pageSize = n))

  /** The minutes the overview's chart covers, 1 to 60 (default 5). */
  def withChartMinutes(n: Int): Either[ConfigError, QueueUiSettings] =
    if n < 1 || n > 60 then Left(ConfigError.OutOfRange("ui chart minutes", n.toString, "1..60"))
    else Right(copy(chartMinutes = n))

  /** Seconds between two refreshes of a page's live part by its script, 1 to 3600 (default 5). */
  def withRefreshSeconds(n: Int): Either[ConfigError, QueueUiSettings] =
    if n < 1 || n > 3600 then
      Left(ConfigError.OutOfRange("ui refresh seconds", n.toString, "1..3600"))
    else Right(copy(refreshSeconds = n))

  /** The overview's counts shared by every request (default 1 s and 60 s): counts younger than
    * `fresh` are shown as they are; counts younger than `stale` are shown at once while new ones
    * are counted for the next request; older ones (or none) are waited for. So any number of open
    * dashboards cost the database at most one overview a `fresh` period, and a polled page never
    * waits for the count. An action taken through the ui makes the next overview wait for new
    * counts. `Left` unless 0 <= `fresh` <= `stale` <= 1 hour.
    */
  def withSharedOverview(
      fresh: FiniteDuration,
      stale: FiniteDuration
  ): Either[ConfigError, QueueUiSettings] =
    if fresh < Duration.Zero || stale < fresh || stale > 1.hour then
      Left(
        ConfigError.Invalid(
          "ui shared overview",
          s"needs 0 <= fresh <= stale <= 1 hour, got fresh $fresh and stale $stale"
        )
      )
    else Right(copy(overviewFresh = fresh, overviewStale = stale))

  /** Each overview request counts afresh (no sharing between requests). */
  def withoutSharedOverview: QueueUiSettings =
    copy(overviewFresh = Duration.Zero, overviewStale = Duration.Zero)

object QueueUiSettings:

  /** The shortest token accepted. */
  val minTokenLength: Int = 16

  /** Schema `weir`, no token, actions offered, 50 jobs a page, a 5-minute chart, refresh every 5 s,
    * the overview's counts shared for 1 s (fresh) and 60 s (stale).
    */
  val default: QueueUiSettings =
    new QueueUiSettings(QueueSchemaName.default, None, false, 50, 5, 5, 1.second, 1.minute)
