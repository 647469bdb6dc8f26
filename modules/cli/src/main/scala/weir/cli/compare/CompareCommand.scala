package weir.cli.compare

import cats.effect.{ExitCode, IO}
import com.monovore.decline.Opts
import weir.cli.common.{Console, Exit, Invocation}
import weir.lab.compare.{CompareRunner, VirtualBaseline}
import weir.lab.run.Outcome

/** `weir compare`: every strategy on every scenario, live lanes, then the results table.
  *
  * Flow: options → [[weir.lab.compare.ComparePlan]] → [[CompareRunner]] (the engine's statistics to
  * [[LiveView]]) → [[weir.lab.compare.CompareReport]] → [[CompareRender]] on stdout, and
  * [[ComparePage]] for `--format html` or `--report FILE.html`. Exit 0 when every run completed, 1
  * when one failed or deadlocked (or the HTML file could not be written), 2 for bad options.
  */
object CompareCommand:

  val opts: Opts[Invocation => IO[ExitCode]] =
    Opts.subcommand(
      "compare",
      "Run task-processing strategies on the seed's scenarios (slow producer, balanced, slow consumer) and compare their wall times: live P/C lanes on stderr, then a table on stdout (text, Markdown, CSV, JSON, or an HTML page with charts of every run's events: --format html, or --report FILE.html beside the table)."
    )(CompareOptions.opts.map(options => invocation => run(options, invocation)))

  def run(options: CompareOptions, invocation: Invocation): IO[ExitCode] =
    LiveView.resource(options.plan, options.live).use { view =>
      for
        _ <-
          if options.warmUp then
            Console.error("warming up (every strategy once, ~0.1 s each)") >> CompareRunner
              .warmUp(options.plan)
          else IO.unit
        measured <- CompareRunner.run(options.plan, view)
        report <-
          if options.vsVirtual then
            Console.error("computing the virtual-time baseline") >> VirtualBaseline.fill(measured)
          else IO.pure(measured)
        written <- options.output
          .emit("weir compare", invocation, CompareRender(_, report), ComparePage(report, _))
      yield
        val incomplete = report.rows.exists(_.outcomes.exists(!_.isInstanceOf[Outcome.Completed]))
        if incomplete || !written then Exit.Failed else Exit.Ok
    }
