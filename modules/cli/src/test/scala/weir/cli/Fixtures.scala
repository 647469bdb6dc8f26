package weir.cli

import scala.concurrent.duration.*
import weir.Limits
import io.circe.Json
import java.time.Instant
import weir.cli.common.{Invocation, Provenance, Table}
import weir.cli.load.LoadCharts
import weir.cli.runtimes.{RuntimesPlan, RuntimesReport}
import weir.engine.{Percentiles, Snapshot}
import weir.lab.compare.{ComparePlan, CompareReport, Timeline}
import weir.lab.run.Outcome
import weir.lab.runtimes.{Burst, ProbeResult}
import weir.lab.workload.Scenario
import weir.runtime.RuntimePreset
import weir.lab.strategy.Strategies

/** Reports with fixed figures, for golden files and HTML checks: no run, no clock. */
object Fixtures:

  /** How the pages under test say they were made. */
  val provenance: Provenance =
    Provenance.of(
      Invocation(List("compare", "--format", "html")),
      Instant.parse("2026-11-24T02:00:00Z")
    )

  private def snapshot(ms: Long, batches: Long, ended: Long, inFlight: Long) =
    Snapshot(
      ms.millis,
      batches * 100,
      batches,
      ended,
      Map.empty,
      0,
      0,
      0,
      inFlight,
      0,
      0,
      Percentiles.empty,
      Percentiles.empty,
      concurrencyLimit = 100
    )

  /** A plausible run: batches every 50 ms, tasks ending from 20 ms on. */
  private def timeline(lengthMs: Long): Timeline =
    (0L to lengthMs by 10L).foldLeft(Timeline.start(10.millis)) { (t, at) =>
      val batches = math.min(10L, at / 50 + 1)
      val ended = math.min(1000L, math.max(0L, (at - 20) * 1000 / math.max(1L, lengthMs - 20)))
      t.record(snapshot(at, batches, ended, math.min(100L, batches * 100 - ended)))
    }

  val compare: CompareReport =
    val strategies =
      List("batch-io", "stream", "weir").flatMap(Strategies.named) :+ Strategies.deadlocking
    val plan = ComparePlan(
      List(Scenario.slowConsumer, Scenario.balanced),
      strategies,
      repetitions = 2,
      seed = 1,
      scale = 0.1,
      runtime = RuntimePreset.Fixed(2),
      limits = Limits.default
    )
    val times = Map(
      ("slow-consumer", "batch-io") -> List(1001L, 1004L),
      ("slow-consumer", "stream") -> List(656L, 660L),
      ("slow-consumer", "weir") -> List(553L, 557L),
      ("balanced", "batch-io") -> List(2989L, 2995L),
      ("balanced", "stream") -> List(1589L, 1601L),
      ("balanced", "weir") -> List(1224L, 1230L)
    )
    val measured = for
      scenario <- plan.scenarios
      strategy <- plan.strategies
    yield
      val runs = times.get((scenario.name, strategy.name)) match
        case Some(ms) => ms.map(t => CompareReport.Run(Outcome.Completed(t.millis), timeline(t)))
        case None =>
          List.fill(2)(CompareReport.Run(Outcome.Deadlocked(2300.millis, 2.seconds), timeline(300)))
      CompareReport.Measured(scenario, strategy, runs)
    CompareReport.of(plan, measured)

  val runtimes: RuntimesReport =
    val plan = RuntimesPlan(
      List(RuntimePreset.WorkStealing, RuntimePreset.Fixed(2), RuntimePreset.Virtual),
      List(10, 500),
      cycles = 200,
      bursts = List(Burst.Blocking, Burst.Pure),
      stallAfter = 3.seconds,
      warmUpCalls = 1000000,
      rounds = 3
    )
    def done(cold: Double, rounds: List[Double], tw: Int, peak: Int) =
      ProbeResult(
        ProbeResult.Outcome.Completed,
        Some(cold),
        rounds,
        4,
        Map("RUNNABLE" -> 4, "WAITING" -> 3, "TIMED_WAITING" -> tw),
        peak,
        Some(300000L)
      )
    def cell(burst: Burst, runtime: RuntimePreset, n: Int, r: ProbeResult) =
      RuntimesReport.Cell(burst, runtime, n, r)
    val stalled = ProbeResult(
      ProbeResult.Outcome.Deadlocked,
      None,
      List(3004.0),
      0,
      Map("WAITING" -> 5),
      12,
      Some(120000L)
    )
    val skipped =
      ProbeResult.nothing(ProbeResult.Outcome.Skipped("fixed:2 did not complete 10 processes"))
    val cells = List(
      cell(Burst.Blocking, RuntimePreset.WorkStealing, 10, done(836, List(29, 25, 35), 11, 18)),
      cell(
        Burst.Blocking,
        RuntimePreset.WorkStealing,
        500,
        done(3109, List(837, 805, 938), 501, 508)
      ),
      cell(Burst.Blocking, RuntimePreset.Fixed(2), 10, stalled),
      cell(Burst.Blocking, RuntimePreset.Fixed(2), 500, skipped),
      cell(Burst.Blocking, RuntimePreset.Virtual, 10, done(793, List(43, 41, 45), 2, 9)),
      cell(Burst.Blocking, RuntimePreset.Virtual, 500, done(4371, List(249, 238, 265), 2, 9)),
      cell(Burst.Pure, RuntimePreset.WorkStealing, 10, done(120, List(2, 2, 3), 0, 12)),
      cell(Burst.Pure, RuntimePreset.WorkStealing, 500, done(180, List(20, 19, 22), 0, 12)),
      cell(Burst.Pure, RuntimePreset.Fixed(2), 10, done(110, List(1.5, 1.4, 1.6), 0, 9)),
      cell(Burst.Pure, RuntimePreset.Fixed(2), 500, done(170, List(12, 11, 13), 0, 9)),
      cell(Burst.Pure, RuntimePreset.Virtual, 10, done(140, List(3, 3, 4), 0, 9)),
      cell(Burst.Pure, RuntimePreset.Virtual, 500, done(260, List(30, 28, 33), 0, 9))
    )
    RuntimesReport(plan, cells, "25.0.3+9-LTS", 2)

  /** A minute of load at c = 1 000 against delays of 0..200 ms: a ramp, a dip with timeouts. */
  val load: LoadCharts =
    val intervals = (0 until 60).toVector.map { s =>
      val ramp = math.min(1.0, (s + 1) / 3.0)
      val dip = s >= 30 && s < 33
      val errors =
        if dip then Map("timeout" -> (40L * (s - 29)), "reset" -> 3L) else Map.empty[String, Long]
      LoadCharts.Interval(
        start = s.toDouble,
        length = 1.0,
        finished = ((if dip then 6000 else 9800) * ramp).toLong,
        inFlight = if s == 59 then 0L else (1000 * ramp).toLong,
        p50Ms = 100 + (s % 7),
        p99Ms = if dip then 1900.0 else 198.0,
        maxMs = if dip then 2000.0 else 205.0 + s % 5,
        errors = errors
      )
    }
    val distribution = (0 to 60).toVector.map { k =>
      val p = 100 * (1 - math.pow(10, -k / 12.0))
      LoadCharts.Quantile(p, if p < 99 then 2 * p else 198 + (p - 99) * 900)
    }
    LoadCharts(
      intervals,
      distribution,
      concurrency = 1000,
      ceiling = Some(10000.0),
      finiteIdeal = Some(9936.0)
    )

  val loadTable: Table = Table(
    List(Table.left("field"), Table.left("value")),
    List(List("target", "http://127.0.0.1:8000/{id}"), List("throughput", "9,412 req/s"))
  )

  val loadJson: Json = Json.obj(
    "target" -> Json.fromString("http://127.0.0.1:8000/{id}"),
    "throughput_rps" -> Json.fromDoubleOrNull(9412.0)
  )
