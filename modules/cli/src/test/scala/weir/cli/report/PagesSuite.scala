package weir.cli.report

import java.time.Instant
import munit.FunSuite
import weir.cli.Fixtures
import weir.cli.common.Args.Format
import weir.cli.common.{Invocation, Provenance}
import weir.cli.compare.CompareRender
import weir.cli.runtimes.RuntimesRender

/** Every command's HTML report: well-formed, self-contained, carrying its JSON report and how it
  * was made, with the charts and tables it promises.
  */
class PagesSuite extends FunSuite:

  private val provenance =
    Provenance.of(
      Invocation(List("compare", "--format", "html")),
      Instant.parse("2026-11-24T02:00:00Z")
    )

  test("compare: well-formed, self-contained, its data is the JSON report") {
    val html = ComparePage(Fixtures.compare, provenance)
    val doc = PageChecks.check(html, CompareRender(Format.Json, Fixtures.compare))
    val figures = doc.getElementsByTagName("figure")
    // Per scenario: the whiskers and the lanes.
    assertEquals(figures.getLength, 2 * Fixtures.compare.plan.scenarios.size)
    assertEquals(doc.getElementsByTagName("table").getLength, Fixtures.compare.plan.scenarios.size)
    assert(!html.contains("http://") && !html.contains("https://"))
    assert(html.contains("weir compare --format html"), "the command line")
    assert(html.contains("deadlocked after 2.3 s"), "a run that did not complete says so")
  }

  test("runtimes: well-formed, self-contained, its data is the JSON report") {
    val html = RuntimesPage(Fixtures.runtimes, provenance)
    val doc = PageChecks.check(html, RuntimesRender(Format.Json, Fixtures.runtimes))
    // Per burst: time, speed-up, µs per call, threads.
    assertEquals(doc.getElementsByTagName("figure").getLength, 4 * 2)
    assert(!html.contains("http://") && !html.contains("https://"))
    assert(html.contains("seed: virtual"), "the seed's figures beside ours")
  }

  test("runtimes: one runtime and one size still make a page (no speed-up to draw)") {
    val one = Fixtures.runtimes.copy(
      plan = Fixtures.runtimes.plan
        .copy(runtimes = List(weir.runtime.RuntimePreset.WorkStealing), processes = List(10)),
      cells = Fixtures.runtimes.cells.filter(c => c.runtime.label == "wsp" && c.processes == 10)
    )
    val html = RuntimesPage(one, provenance)
    PageChecks.check(html, RuntimesRender(Format.Json, one))
    assert(html.contains("No speed-up over work stealing to draw"))
  }

  test("a chart with no data, or a single point, on log axes draws without failing") {
    val empty =
      LineChart("empty", LineChart.Axis("x", log = true), LineChart.Axis("y", log = true), Nil)
    val single = LineChart(
      "one",
      LineChart.Axis("x", log = true),
      LineChart.Axis("y", log = true),
      List(LineChart.Series("s", Vector(10.0 -> 5.0, 20.0 -> Double.NaN), "#000"))
    )
    PageChecks.parseXml(s"<div>${empty.svg}${single.svg}</div>")
  }

  test("load: well-formed, self-contained, its data is the JSON it was given") {
    val html = LoadPage(
      provenance,
      "weir load: 600 000 requests at c = 1 000",
      Fixtures.load,
      Fixtures.loadTable,
      Fixtures.loadJson
    )
    val doc = PageChecks.check(html, Fixtures.loadJson.noSpaces)
    // Throughput, in flight, latency, errors, distribution.
    assertEquals(doc.getElementsByTagName("figure").getLength, 5)
    assert(html.contains("Little&#39;s-law ceiling") && html.contains("finite-N ideal"))
    assert(html.contains("timeout") && html.contains("reset"), "every error class")
  }

  test("the data escapes cannot close the script element, and still read back as the same JSON") {
    val json = io.circe.Json.obj("text" -> io.circe.Json.fromString("</script><b>&amp;"))
    val embedded = Html.embed(json)
    assert(!embedded.contains("<") && !embedded.contains("&"))
    assertEquals(io.circe.parser.parse(embedded), Right(json))
  }
