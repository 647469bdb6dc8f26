package weir.lab.compare

import cats.effect.IO
import cats.effect.testkit.TestControl
import cats.syntax.all.*
import scala.concurrent.duration.FiniteDuration
import weir.engine.Processing
import weir.lab.compare.CompareReport
import weir.lab.compare.Summary
import weir.lab.workload.Progress
import weir.lab.strategy.{BlockingQueue, RealBlockingQueue}
import weir.lab.workload.SeededRandom

/** The time each measured run would take with no CPU cost: the same strategy, scenario, scale and
  * random seeds, run in virtual time (cats-effect's `TestControl`). Comparing it with the real run
  * shows the real-time overhead of a strategy.
  *
  * Strategies that block threads cannot run on the single-threaded virtual runtime and get none.
  * Runs one at a time on the caller's runtime; a virtual run takes from milliseconds to a second of
  * CPU.
  */
object VirtualBaseline:

  /** The report with `virtual` filled in for every row that can run in virtual time. */
  def fill(report: CompareReport): IO[CompareReport] =
    report.rows
      .traverse { row =>
        if row.strategy == BlockingQueue || row.strategy == RealBlockingQueue then IO.pure(row)
        else
          (0 until report.plan.repetitions).toList
            .traverse(repetition => elapsed(report, row, report.plan.seed + repetition))
            .map(times => row.copy(virtual = Summary.of(times).map(_.median)))
      }
      .map(rows => report.copy(rows = rows))

  private def elapsed(
      report: CompareReport,
      row: CompareReport.Row,
      seed: Long
  ): IO[FiniteDuration] =
    val scenario = row.scenario.scaled(report.plan.scale)
    val program = for
      progress <- Progress.create[IO]()
      workload = scenario.workload[IO](seed, progress)
      start <- IO.monotonic
      _ <- Processing.run(workload.source, row.strategy, report.plan.limits)(workload.handler)
      end <- IO.monotonic
    yield end - start
    TestControl.executeEmbed(program, seed = Some(SeededRandom.schedulingSeed(seed)))
