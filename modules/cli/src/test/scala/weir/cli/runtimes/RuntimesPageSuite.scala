package weir.cli.runtimes

import munit.FunSuite
import weir.cli.Fixtures
import weir.cli.Fixtures.provenance
import weir.cli.common.Args.Format
import weir.cli.common.RuntimeSyntax.label
import weir.cli.report.PageChecks

/** `weir runtimes`' HTML report: well-formed, self-contained, carrying its JSON report, with the
  * charts it promises.
  */
class RuntimesPageSuite extends FunSuite:

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
