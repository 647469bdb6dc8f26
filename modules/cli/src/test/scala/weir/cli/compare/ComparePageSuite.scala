package weir.cli.compare

import munit.FunSuite
import weir.cli.Fixtures
import weir.cli.Fixtures.provenance
import weir.cli.common.Args.Format
import weir.cli.report.PageChecks

/** `weir compare`'s HTML report: well-formed, self-contained, carrying its JSON report and how it
  * was made, with the charts and tables it promises.
  */
class ComparePageSuite extends FunSuite:

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
