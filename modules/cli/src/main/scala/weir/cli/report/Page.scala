package weir.cli.report

import weir.cli.common.Provenance
import io.circe.Json

/** One self-contained HTML report: a title, how it was made ([[Provenance]]), the command's
  * sections (charts and tables), and the command's JSON report embedded as data.
  *
  * The page loads nothing: no script, font, style sheet or image from anywhere (charts are inline
  * SVG, styles inline), so it opens offline and reads the same with JavaScript off. It is also
  * well-formed XML, so tests parse it with the JDK's XML parser. Narrow screens scroll wide charts
  * and tables sideways inside their box; printing keeps each chart on one page.
  *
  * The JSON sits in `<script type="application/json" id="weir-data">`, exactly what the command
  * prints with `--format json` (`<`, `>` and `&` escaped as `\u003c`-style escapes, the same JSON
  * value); the provenance sits beside it in `id="weir-provenance"`.
  *
  * This package holds only the primitives (the page, [[Html]], the SVG charts [[LineChart]],
  * [[WhiskerChart]] and [[LaneChart]], each drawn as a [[Figure]]) and knows no command. A
  * command's page lives in the command's own package (`weir.cli.compare.ComparePage`,
  * `weir.cli.load.LoadHtml`, ...): a pure function from its report and [[Provenance]] to
  * `Page(...).render`, whose `data` is the JSON that `--format json` prints for the same run.
  *
  * @param title
  *   the page's heading, e.g. `weir compare`
  * @param summary
  *   one paragraph of plain text under the title: what was run
  * @param sections
  *   the command's content, in order
  * @param data
  *   the command's JSON report
  */
final case class Page(
    title: String,
    summary: String,
    provenance: Provenance,
    sections: List[Page.Section],
    data: Json
):
  import Html.escape

  /** The whole page. */
  def render: String =
    val nav = sections
      .map(s => s"""<li><a href="#${escape(s.id)}">${escape(s.heading)}</a></li>""")
      .mkString("\n")
    val made = provenance.fields
      .map((k, v) => s"<dt>${escape(k)}</dt><dd>${escape(v)}</dd>")
      .mkString("\n")
    val body = sections
      .map(s => s"""<section id="${escape(s.id)}">
           |<h2>${escape(s.heading)}</h2>
           |${s.body}
           |</section>""".stripMargin)
      .mkString("\n")
    s"""<!DOCTYPE html>
       |<html lang="en">
       |<head>
       |<meta charset="utf-8" />
       |<meta name="viewport" content="width=device-width, initial-scale=1" />
       |<meta name="generator" content="weir ${escape(provenance.version)}" />
       |<title>${escape(title)} — ${escape(provenance.date)}</title>
       |<style>
       |${Page.css}
       |</style>
       |</head>
       |<body>
       |<header>
       |<h1>${escape(title)}</h1>
       |<p class="summary">${escape(summary)}</p>
       |<dl class="made">
       |$made
       |</dl>
       |</header>
       |<nav><ul>
       |$nav
       |<li><a href="#data">Data</a></li>
       |</ul></nav>
       |<main>
       |$body
       |<section id="data">
       |<h2>Data</h2>
       |<p>This page holds its data: the JSON report that <code>--format json</code> prints for the same
       |run, in <code>&lt;script type="application/json" id="weir-data"&gt;</code>, and how it was made in
       |<code>id="weir-provenance"</code>, each on one line. To take the data out:</p>
       |<pre>sed -n 's/^&lt;script type="application\\/json" id="weir-data"&gt;\\(.*\\)&lt;\\/script&gt;$$/\\1/p' report.html</pre>
       |</section>
       |</main>
       |<script type="application/json" id="weir-data">${Html.embed(data)}</script>
       |<script type="application/json" id="weir-provenance">${Html.embed(provenance.json)}</script>
       |</body>
       |</html>
       |""".stripMargin

object Page:

  /** One part of a page: a heading (also its entry in the page's contents) and an HTML fragment of
    * charts ([[Figure]]), tables ([[Html.table]]) and paragraphs. The fragment must be well-formed
    * XML and may not load anything.
    */
  final case class Section(id: String, heading: String, body: String)

  /** The page's style sheet: system fonts, a readable measure, charts and tables that scroll
    * sideways on narrow screens, and print rules.
    */
  val css: String =
    """:root { --ink: #1d2330; --muted: #5b6472; --rule: #d8dde5; --paper: #ffffff; --tint: #f5f7fa; }
      |* { box-sizing: border-box; }
      |body { margin: 0 auto; max-width: 980px; padding: 16px; color: var(--ink); background: var(--paper);
      |  font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
      |h1 { font-size: 1.6em; margin: 0.2em 0; }
      |h2 { font-size: 1.25em; margin: 1.6em 0 0.4em; border-bottom: 1px solid var(--rule); padding-bottom: 0.2em; }
      |h3 { font-size: 1.05em; margin: 1.2em 0 0.3em; }
      |p { margin: 0.4em 0 0.8em; }
      |.summary { color: var(--muted); }
      |code, pre, .made dd { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, "Liberation Mono", monospace; font-size: 0.88em; }
      |pre { background: var(--tint); padding: 8px; overflow-x: auto; white-space: pre; }
      |.made { display: grid; grid-template-columns: max-content 1fr; gap: 2px 12px; background: var(--tint);
      |  padding: 8px 12px; border-radius: 6px; margin: 0.6em 0; }
      |.made dt { color: var(--muted); }
      |.made dd { margin: 0; overflow-wrap: anywhere; }
      |nav ul { list-style: none; padding: 0; margin: 0.4em 0; display: flex; flex-wrap: wrap; gap: 4px 14px; }
      |a { color: #0b5cad; }
      |figure { margin: 0.8em 0 1.4em; break-inside: avoid; page-break-inside: avoid; }
      |figcaption { font-weight: 600; margin-bottom: 0.2em; }
      |figcaption .note { font-weight: 400; color: var(--muted); }
      |.chart { overflow-x: auto; }
      |.chart svg { display: block; width: 100%; max-width: 760px; min-width: 560px; height: auto; }
      |svg text { font-size: 13px; fill: var(--ink); font-family: inherit; }
      |svg .muted { fill: var(--muted); }
      |svg .axis { stroke: #8a93a1; stroke-width: 1; }
      |svg .grid { stroke: #e6e9ee; stroke-width: 1; }
      |ul.legend { list-style: none; padding: 0; margin: 0.3em 0 0; display: flex; flex-wrap: wrap; gap: 2px 16px; font-size: 0.9em; }
      |ul.legend svg { vertical-align: middle; margin-right: 4px; }
      |.table { overflow-x: auto; margin: 0.6em 0 1em; }
      |table { border-collapse: collapse; font-size: 0.9em; }
      |caption { text-align: left; font-weight: 600; padding-bottom: 0.3em; }
      |th, td { padding: 3px 8px; border-bottom: 1px solid var(--rule); text-align: left; white-space: nowrap; }
      |th { background: var(--tint); }
      |td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
      |@media (max-width: 600px) { body { padding: 10px; font-size: 14px; } .made { grid-template-columns: 1fr; } }
      |@media print { body { max-width: none; padding: 0; font-size: 11pt; } nav, #data pre { display: none; }
      |  .chart svg { min-width: 0; } .table { overflow: visible; } h2 { break-after: avoid; } a { color: inherit; } }""".stripMargin
