package weir.cli

/** HTML reports: every reporting command's report as one self-contained page, pure functions from a
  * report value to an HTML string.
  *
  * '''What is here.''' [[Page]] is the skeleton (title, summary, how the report was made, the
  * command's sections, its JSON report embedded as data, an inline style sheet; no script and no
  * reference outside the file). [[weir.cli.common.Provenance]] is how the report was made. The
  * charts are hand-made SVG: [[LineChart]] (lines or areas over a linear or log axis, with
  * horizontal reference lines), [[WhiskerChart]] (bars with min–max whiskers, a reference mark per
  * row, a common bound), [[LaneChart]] (a run's events over time, lane by lane); each becomes a
  * [[Figure]] (caption, chart, legend, note). [[Html]] escapes text, embeds JSON and renders a
  * [[weir.cli.common.Table]]. One file per command's page: [[ComparePage]], [[RuntimesPage]],
  * [[LoadPage]].
  *
  * '''How a command adds its report.'''
  *
  *   1. Give the command [[weir.cli.common.Output.opts]] (`--format ...|html` and `--report
  *      FILE.html`) and take the [[weir.cli.common.Invocation]] from `Main` (its `opts` become
  *      `Opts[Invocation => IO[ExitCode]]`). 2. Write `XPage.apply(report, provenance): String`
  *      here: build the JSON report with circe (the same value `--format json` prints), the
  *      sections (charts from the primitives above, tables with [[Html.table]]) and return
  *      `Page(title, summary, provenance, sections, json).render`. Keep it pure; the command reads
  *      the clock and the JVM for [[Provenance.current]]. 3. In the command, end with
  *      `output.emit(name, RenderX(_, report), XPage(report, provenance))`: stdout gets the chosen
  *      format, and the HTML file is written when asked; a `Left` is a message for stderr and exit
  *      \1. 4. Test it as `PagesSuite` does: the page parses as XML, loads nothing, and its
  *      embedded `weir-data` equals the JSON report.
  *
  * For `weir load`, [[LoadPage]] is written already against [[LoadCharts]]: its owner supplies the
  * JSON report, the summary table and a [[LoadCharts]] (per-interval throughput, in flight, p50,
  * p99, max and errors by class; the run's percentile distribution; the concurrency bound; the
  * Little's-law ceiling and the finite-N ideal). `weir apply-sql` would add `ApplySqlPage` the same
  * way.
  */
package object report
