package weir.cli.report

import munit.FunSuite

/** What every page is made of: charts that draw from any data, and embedded data that reads back as
  * the same JSON. Each command's page is checked beside the command (`ComparePageSuite`, ...).
  */
class PagesSuite extends FunSuite:

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

  test("the data escapes cannot close the script element, and still read back as the same JSON") {
    val json = io.circe.Json.obj("text" -> io.circe.Json.fromString("</script><b>&amp;"))
    val embedded = Html.embed(json)
    assert(!embedded.contains("<") && !embedded.contains("&"))
    assertEquals(io.circe.parser.parse(embedded), Right(json))
  }
