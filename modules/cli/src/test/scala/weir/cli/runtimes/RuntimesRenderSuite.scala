package weir.cli.runtimes

import io.circe.parser.parse
import munit.FunSuite
import weir.cli.{Fixtures, Golden}
import weir.cli.common.Args.Format
import weir.cli.common.RuntimeSyntax.label
import weir.lab.runtimes.Burst

/** `weir runtimes`' renderers: text, Markdown and CSV against golden files; JSON parses back to the
  * report's figures; the ratios and µs per call are what they say.
  */
class RuntimesRenderSuite extends FunSuite with Golden.Formats:

  private val report = Fixtures.runtimes

  goldenFormats("runtimes", RuntimesRender(_, report))

  test("median of the timed bursts, µs per call, speed-up warm and cold") {
    val virtual500 = report.cells
      .find(c => c.runtime.label == "virtual" && c.processes == 500 && c.burst == Burst.Blocking)
      .get
    assertEquals(virtual500.result.millis, Some(249.0))
    assertEqualsDouble(report.microsPerCall(virtual500).get, 249.0 * 1000 / 100000, 1e-9)
    assertEqualsDouble(report.speedUp(virtual500).get, 837.0 / 249, 1e-9)
    assertEqualsDouble(report.coldSpeedUp(virtual500).get, 3109.0 / 4371, 1e-9)
  }

  test("json parses, one object per cell") {
    val json = parse(RuntimesRender(Format.Json, report)).fold(e => fail(e.getMessage), identity)
    val cells = json.hcursor.downField("cells").focus.flatMap(_.asArray).getOrElse(fail("no cells"))
    assertEquals(cells.size, report.cells.size)
    val wsp500 = cells(1).hcursor
    assertEquals(wsp500.get[Double]("ms"), Right(837.0))
    assertEquals(wsp500.get[List[Double]]("rounds_ms"), Right(List(837.0, 805.0, 938.0)))
    assertEquals(wsp500.get[Double]("us_per_call"), Right(8.37))
    assertEquals(wsp500.get[Int]("seed_ms"), Right(39538))
    assertEquals(wsp500.downField("threads_at_end").get[Int]("TIMED_WAITING"), Right(501))
    assertEquals(json.hcursor.downField("plan").get[Long]("warm_up_calls"), Right(1000000L))
  }
