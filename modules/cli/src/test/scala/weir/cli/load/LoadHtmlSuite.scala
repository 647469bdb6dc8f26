package weir.cli.load

import munit.FunSuite
import weir.cli.Fixtures
import weir.cli.Fixtures.provenance
import weir.cli.report.PageChecks

/** `weir load`'s HTML report, drawn from fixed charts: well-formed, self-contained, carrying the
  * JSON it was given, with every chart and error class.
  */
class LoadHtmlSuite extends FunSuite:

  test("load: well-formed, self-contained, its data is the JSON it was given") {
    val html = LoadHtml.page(
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
