package weir.cli.load

import io.circe.parser.parse
import munit.FunSuite
import scala.concurrent.duration.*
import weir.cli.common.Args.Format
import weir.http.*

/** Golden outputs of the load report in every format, from one fixed report. */
class LoadRenderSuite extends FunSuite:

  private val report = LoadReport(
    target = "http://127.0.0.1:8000/{id} × 1000",
    concurrency = 50,
    adaptive = None,
    rate = None,
    planned = Some(1000),
    launched = 1000,
    unfinished = 2,
    retries = 7,
    statuses = Map(200 -> 900L, 500 -> 90L),
    errors = Map(ErrorClass.Timeout -> 5L, ErrorClass.Input -> 3L),
    samples = Map(ErrorClass.Timeout -> "no response within 2.00 s"),
    badLines = List(RequestFailed.BadLine(17, "garbage", "'garbage' is not an absolute URL")),
    latency = Latency(990, 101.5e6, 100000000, 180000000, 198000000, 200000000, 210000000),
    distribution = List(0.0 -> 1000000L, 50.0 -> 100000000L, 100.0 -> 210000000L),
    elapsed = 2.seconds,
    peakInFlight = 50,
    ending = Ending.Completed,
    ceiling = Some(500.0),
    finiteIdeal = Some(1980.millis),
    warmUp = Some(WarmUp(20000, 1.second))
  )

  test("text") {
    assertEquals(
      LoadRender(Format.Text, report, 0.05),
      """weir load
        |  target          http://127.0.0.1:8000/{id} × 1000
        |  concurrency     50
        |  ending          completed
        |  elapsed         2.00 s
        |  requests        998 finished of 1,000 launched (1,000 planned), 2 cut off
        |  retries         7
        |  status codes    200: 900, 500: 90
        |  no answer       timeout 5, input 3
        |  failures        98 (no response or status >= 400), error rate 0.0982
        |  latency         p50 100.0 ms, p90 180.0 ms, p99 198.0 ms, p99.9 200.0 ms, max 210.0 ms (mean 101.5 ms)
        |  throughput      499 req/s
        |  peak in flight  50 (bound 50)
        |  little's law    ceiling 500 req/s, efficiency 99.8 %
        |  finite-N ideal  1.98 s (504 req/s), efficiency 99.0 %
        |  client warm-up  20,000 requests to weir's own server in 1.00 s, before the load (not counted)
        |  timeout e.g.    no response within 2.00 s
        |  line 17         'garbage' is not an absolute URL
        |  verdict         FAILED: error rate 0.0982 > --max-error-rate 0.05""".stripMargin
    )
  }

  test("JSON parses, and its counts agree with each other") {
    val json = parse(LoadRender(Format.Json, report, 0.05)).fold(e => fail(e.toString), identity)
    val c = json.hcursor
    assertEquals(c.get[Long]("failures"), Right(98L))
    assertEquals(c.get[Long]("no_response"), Right(8L))
    assertEquals(c.get[Long]("error_responses"), Right(90L))
    assertEqualsDouble(c.get[Double]("error_rate").toOption.get, 98.0 / 998, 1e-12)
    assertEquals(c.downField("statuses").get[Long]("500"), Right(90L))
    assertEquals(c.downField("errors").get[Long]("input"), Right(3L))
    assertEquals(c.downField("bad_lines").downN(0).get[Long]("line"), Right(17L))
    assertEquals(c.get[Int]("retries"), Right(7))
    assertEquals(c.get[Option[Int]]("concurrency_min"), Right(None))
    assertEquals(c.get[String]("verdict").map(_.take(6)), Right("FAILED"))
    assertEquals(c.downField("latency_distribution").downN(1).get[Double]("ms"), Right(100.0))
  }

  test("CSV: a header and one row of equal width, status and error columns, no null") {
    val Array(header, row) = LoadRender(Format.Csv, report, 0.05).split("\n")
    val (names, cells) = (header.split(","), row.split(",", -1))
    assertEquals(names.length, cells.length)
    val byName = names.zip(cells).toMap
    assertEquals(
      (byName("status_200"), byName("status_500"), byName("errors_timeout"), byName("failures")),
      ("900", "90", "5", "98")
    )
    assertEquals((byName("rate"), byName("concurrency_min")), ("", ""))
    assert(!row.contains("null"), row)
  }

  test("Markdown: one row per line of the text report") {
    val md = LoadRender(Format.Markdown, report, 0.05).split("\n")
    assertEquals(md.take(2).toList, List("| metric | value |", "|---|---|"))
    assertEquals(md.length, 2 + 18)
  }
