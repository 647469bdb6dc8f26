package weir.cli.runtimes

import cats.effect.{ExitCode, IO}
import cats.syntax.all.*
import com.monovore.decline.Opts
import weir.cli.common.{Console, Exit, Invocation}
import weir.cli.common.RuntimeSyntax.label
import weir.lab.runtimes.ProbeResult

/** `weir runtimes`: seed 004's burst of blocking calls (and a non-blocking control) on each runtime
  * preset, every cell in a fresh JVM, the seed's table beside ours.
  *
  * Flow: options → [[RuntimesPlan]] → one [[Fork.probe]] per cell, in order, progress on stderr →
  * [[RuntimesReport]] → [[RuntimesRender]] on stdout, and [[RuntimesPage]] for `--format html` or
  * `--report FILE.html`. A runtime that deadlocks on a burst is reported as such and its larger
  * process counts on that burst are skipped. Exit 0 when every cell ran (deadlocks are results), 1
  * when a probe failed, this JVM cannot fork probes or the HTML file could not be written, 2 for
  * bad options.
  */
object RuntimesCommand:

  val opts: Opts[Invocation => IO[ExitCode]] =
    Opts.subcommand(
      "runtimes",
      "Compare runtimes (work-stealing, fixed pool, virtual threads) under bursts of blocking Dispatcher.unsafeRunSync calls, as seed 004 did, with a non-blocking control. Each cell runs in a fresh JVM: one cold burst, warm-up bursts, then timed bursts; the report gives ms, µs per call and the speed-up over wsp, warm and cold, beside the seed's table. Two to three minutes with the defaults on 2 cores; --report FILE.html adds charts."
    )(RuntimesOptions.opts.map(options => invocation => run(options, invocation)))

  def run(options: RuntimesOptions, invocation: Invocation): IO[ExitCode] =
    Fork.check match
      case Left(message) => Console.error(s"weir runtimes: $message").as(Exit.Failed)
      case Right(()) =>
        for
          report <- measure(options.plan)
          written <- options.output.emit(
            "weir runtimes",
            invocation,
            RuntimesRender(_, report),
            RuntimesPage(report, _)
          )
        yield
          val failed =
            report.cells.exists(_.result.outcome.isInstanceOf[ProbeResult.Outcome.Failed])
          if failed || !written then Exit.Failed else Exit.Ok

  /** Runs every cell of `plan` in turn; cancelling kills the probe JVM in flight. */
  def measure(plan: RuntimesPlan): IO[RuntimesReport] =
    val cells = plan.cells
    cells.zipWithIndex
      .foldLeftM(Vector.empty[RuntimesReport.Cell]) {
        case (done, ((burst, runtime, processes), index)) =>
          val gaveUp =
            done.find(c => c.burst == burst && c.runtime == runtime && !c.result.completed)
          val result = gaveUp match
            case Some(earlier) =>
              IO.pure(
                ProbeResult.nothing(
                  ProbeResult.Outcome
                    .Skipped(s"${runtime.label} did not complete ${earlier.processes} processes")
                )
              )
            case None =>
              val what =
                s"${burst.name} on ${runtime.label}, $processes processes x ${plan.cycles} calls"
              Console.error(s"weir runtimes [${index + 1}/${cells.size}] $what ...") >>
                Fork.probe(plan, runtime, burst, processes).flatTap { r =>
                  val calls = plan.callsPerBurst(processes)
                  val shown = r.millis match
                    case Some(ms) =>
                      val cold = r.coldMillis.fold("")(c => f", cold $c%.1f ms")
                      f"$ms%.1f ms (${ms * 1000 / calls}%.2f µs a call$cold), peak ${r.peakThreads} threads"
                    case None => r.outcome.describe
                  Console.error(s"weir runtimes [${index + 1}/${cells.size}]   -> $shown")
                }
          result.map(r => done :+ RuntimesReport.Cell(burst, runtime, processes, r))
      }
      .map(done =>
        RuntimesReport(
          plan,
          done.toList,
          System.getProperty("java.runtime.version"),
          Runtime.getRuntime.availableProcessors()
        )
      )
