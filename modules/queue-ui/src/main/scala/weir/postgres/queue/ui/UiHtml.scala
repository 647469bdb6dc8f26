package weir.postgres.queue.ui

import java.net.URLEncoder
import java.nio.charset.StandardCharsets.UTF_8
import java.time.{Duration, Instant}

/** The pages' HTML, written by hand: [[esc]] is the one function every piece of text from the
  * database or the request goes through (payloads, errors, queue names, kinds, workers), as text or
  * as a double-quoted attribute; everything else is weir's own markup. Pure string functions.
  */
private[ui] object UiHtml:

  /** `text` with `&`, `<`, `>`, `"` and `'` escaped, and control characters but tab and newline as
    * spaces: safe as element text and as an attribute value in double quotes.
    */
  def esc(text: String): String =
    val out = new StringBuilder(text.length + 16)
    text.foreach {
      case '&'                                                 => out ++= "&amp;"
      case '<'                                                 => out ++= "&lt;"
      case '>'                                                 => out ++= "&gt;"
      case '"'                                                 => out ++= "&quot;"
      case '\''                                                => out ++= "&#39;"
      case c if c < ' ' && c != '\n' && c != '\t' && c != '\r' => out ++= " "
      case c                                                   => out += c
    }
    out.toString

  /** `text` as one query-string value (UTF-8, percent-encoded): escape it again in an attribute. */
  def enc(text: String): String = URLEncoder.encode(text, UTF_8)

  /** A link's `href` from `path` and query `params` (those with `None` left out), escaped. */
  def href(path: String, params: (String, Option[String])*): String =
    val q = params.collect { case (k, Some(v)) => s"${enc(k)}=${enc(v)}" }
    esc(if q.isEmpty then path else q.mkString(s"$path?", "&", ""))

  /** An instant, to the second, in UTC. */
  def time(t: Instant): String =
    t.truncatedTo(java.time.temporal.ChronoUnit.SECONDS)
      .toString
      .replace("T", " ")
      .replace("Z", " UTC")

  /** `t` as how long ago (or how far ahead) from `now`: `12 s ago`, `in 3 min`. */
  def ago(t: Instant, now: Instant): String =
    val d = Duration.between(t, now)
    val s = math.abs(d.getSeconds)
    val span =
      if s < 120 then s"$s s" else if s < 7200 then s"${s / 60} min" else s"${s / 3600} h"
    if d.isNegative then s"in $span" else s"$span ago"

  /** Seconds as `4.2 s`, `3 min`, `2 h`. */
  def seconds(s: Double): String =
    if s < 120 then f"$s%.1f s" else if s < 7200 then f"${s / 60}%.0f min" else f"${s / 3600}%.1f h"

  /** A `<form method="post">` with the anti-forgery token, the page to come back to and `fields`,
    * as one button labelled `label`.
    */
  def button(
      action: String,
      label: String,
      csrf: String,
      back: String,
      fields: (String, String)*
  ): String =
    val hidden = (("csrf" -> csrf) +: ("back" -> back) +: fields)
      .map((k, v) => s"""<input type="hidden" name="${esc(k)}" value="${esc(v)}" />""")
      .mkString
    s"""<form method="post" action="${esc(action)}" class="act">$hidden<button type="submit">${esc(
        label
      )}</button></form>"""

  /** A table: header cells (already HTML) and rows of cells (already HTML); `num` columns right. */
  def table(head: List[String], rows: Seq[List[String]], num: Set[Int] = Set.empty): String =
    def cls(i: Int) = if num.contains(i) then " class=\"num\"" else ""
    val h = head.zipWithIndex.map((c, i) => s"<th${cls(i)}>$c</th>").mkString
    val b = rows
      .map(r => r.zipWithIndex.map((c, i) => s"<td${cls(i)}>$c</td>").mkString("<tr>", "", "</tr>"))
      .mkString("\n")
    s"""<div class="table"><table><thead><tr>$h</tr></thead><tbody>
       |$b
       |</tbody></table></div>""".stripMargin

  /** The whole page: the navigation, an optional notice (the outcome of the last action), `fixed`
    * (what a refresh must not replace: a filter form), and `live`, the part the script refreshes
    * from `liveUrl` (the same page with `live=1`).
    */
  def page(
      base: String,
      title: String,
      notice: Option[String],
      live: String,
      liveUrl: String,
      refreshSeconds: Int,
      readOnly: Boolean,
      fixed: String
  ): String =
    val nav = List(
      "Overview" -> s"$base/",
      "Jobs" -> s"$base/jobs",
      "Discarded" -> s"$base/jobs?state=discarded",
      "Workers" -> s"$base/workers",
      "Schedules" -> s"$base/schedules"
    ).map((n, u) => s"""<li><a href="${esc(u)}">${esc(n)}</a></li>""").mkString
    val note = notice.fold("")(n => s"""<p class="notice" role="status">${esc(n)}</p>""")
    val mode = if readOnly then """<span class="ro">read-only</span>""" else ""
    s"""<!DOCTYPE html>
       |<html lang="en">
       |<head>
       |<meta charset="utf-8" />
       |<meta name="viewport" content="width=device-width, initial-scale=1" />
       |<title>${esc(title)} — weir queue</title>
       |<link rel="stylesheet" href="${esc(base)}/ui.css" />
       |<script src="${esc(base)}/ui.js" defer="defer"></script>
       |</head>
       |<body>
       |<header><h1>weir queue $mode</h1><nav><ul>$nav</ul></nav></header>
       |<main>
       |<h2>${esc(title)}</h2>
       |$note
       |$fixed
       |<div id="live" data-refresh="${esc(liveUrl)}" data-every="$refreshSeconds">
       |$live
       |</div>
       |</main>
       |</body>
       |</html>
       |""".stripMargin

  /** The style sheet (served as `ui.css`): the reports' look (system fonts, light tables). */
  val css: String =
    """:root { --ink: #1d2330; --muted: #5b6472; --rule: #d8dde5; --paper: #ffffff; --tint: #f5f7fa; }
      |* { box-sizing: border-box; }
      |body { margin: 0 auto; max-width: 1180px; padding: 16px; color: var(--ink); background: var(--paper);
      |  font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
      |h1 { font-size: 1.4em; margin: 0.2em 0; }
      |h2 { font-size: 1.2em; margin: 1em 0 0.4em; border-bottom: 1px solid var(--rule); padding-bottom: 0.2em; }
      |h3 { font-size: 1.05em; margin: 1.2em 0 0.3em; }
      |.ro { font-size: 0.6em; color: var(--muted); border: 1px solid var(--rule); border-radius: 4px; padding: 1px 6px; vertical-align: middle; }
      |nav ul { list-style: none; padding: 0; margin: 0.4em 0; display: flex; flex-wrap: wrap; gap: 4px 18px; }
      |a { color: #0b5cad; }
      |code, pre, .mono { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, "Liberation Mono", monospace; font-size: 0.88em; }
      |pre { background: var(--tint); padding: 8px; overflow-x: auto; white-space: pre-wrap; overflow-wrap: anywhere; }
      |.notice { background: #eef6ee; border: 1px solid #b9dcb9; padding: 6px 10px; border-radius: 6px; }
      |.muted { color: var(--muted); }
      |.table { overflow-x: auto; margin: 0.6em 0 1em; }
      |table { border-collapse: collapse; font-size: 0.9em; }
      |th, td { padding: 3px 8px; border-bottom: 1px solid var(--rule); text-align: left; vertical-align: top; }
      |th { background: var(--tint); white-space: nowrap; }
      |td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
      |td .err { color: #a33; max-width: 420px; display: inline-block; overflow-wrap: anywhere; }
      |dl.job { display: grid; grid-template-columns: max-content 1fr; gap: 2px 14px; }
      |dl.job dt { color: var(--muted); } dl.job dd { margin: 0; overflow-wrap: anywhere; }
      |form.act { display: inline; margin: 0 6px 0 0; }
      |form.filters { display: flex; flex-wrap: wrap; gap: 6px 12px; align-items: end; margin: 0.4em 0; }
      |form.filters label { display: flex; flex-direction: column; font-size: 0.85em; color: var(--muted); }
      |button { font: inherit; font-size: 0.85em; padding: 2px 10px; cursor: pointer; }
      |.paused { color: #a35b00; font-weight: 600; }
      |.chart svg { display: block; width: 100%; max-width: 900px; height: auto; }
      |svg text { font-size: 12px; fill: var(--muted); font-family: inherit; }
      |svg .axis { stroke: #8a93a1; stroke-width: 1; } svg .grid { stroke: #e6e9ee; stroke-width: 1; }
      |svg .done { stroke: #1f77b4; fill: none; stroke-width: 2; } svg .failed { stroke: #d62728; fill: none; stroke-width: 2; }
      |.legend .done { color: #1f77b4; } .legend .failed { color: #d62728; }""".stripMargin

  /** The script (served as `ui.js`): every `data-every` seconds, the element `#live` is replaced by
    * what its `data-refresh` address answers (the same page's live part), while the tab is visible.
    * Pages work without it: it only keeps them current.
    */
  val js: String =
    """(function () {
      |  var live = document.getElementById('live');
      |  if (!live || !window.fetch) return;
      |  var every = Math.max(1, parseInt(live.getAttribute('data-every'), 10) || 5) * 1000;
      |  function refresh() {
      |    if (document.hidden) return;
      |    fetch(live.getAttribute('data-refresh'), { credentials: 'same-origin' })
      |      .then(function (r) { return r.ok ? r.text() : null; })
      |      .then(function (html) { if (html !== null) live.innerHTML = html; })
      |      .catch(function () {});
      |  }
      |  setInterval(refresh, every);
      |})();
      |""".stripMargin
