package weir.cli.compare

import io.circe.parser.parse
import munit.FunSuite
import weir.cli.{Fixtures, Golden}
import weir.cli.common.Args.Format

/** `weir compare`'s renderers: text, Markdown and CSV against golden files; JSON parses back to the
  * report's figures.
  */
class CompareRenderSuite extends FunSuite with Golden.Formats:

  private val report = Fixtures.compare

  goldenFormats("compare", CompareRender(_, report))

  test("json parses, with a row per scenario and strategy and its timeline") {
    val json = parse(CompareRender(Format.Json, report)).fold(e => fail(e.getMessage), identity)
    val rows = json.hcursor.downField("rows").focus.flatMap(_.asArray).getOrElse(fail("no rows"))
    assertEquals(rows.size, report.rows.size)
    val first = rows.head.hcursor
    assertEquals(first.get[String]("strategy"), Right("batch-io"))
    assertEquals(first.get[Long]("median_ms"), Right(1002L))
    assertEquals(first.get[Long]("seed_ms"), Right(1001L))
    assertEquals(first.get[List[String]]("runs"), Right(List("1001 ms", "1004 ms")))
    val timeline = report.rows.head.timeline.getOrElse(fail("no timeline"))
    assertEquals(
      first.downField("timeline").get[List[Long]]("ended"),
      Right(timeline.buckets.map(_.ended).toList)
    )
    val stuck = rows.find(_.hcursor.get[String]("strategy").contains("real-blocking-queue")).get
    assert(stuck.hcursor.downField("median_ms").focus.exists(_.isNull))
    assertEquals(json.hcursor.downField("plan").get[Double]("scale"), Right(0.1))
  }
