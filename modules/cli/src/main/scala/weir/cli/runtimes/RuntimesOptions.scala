package weir.cli.runtimes

import cats.syntax.all.*
import com.monovore.decline.Opts
import weir.cli.common.{Args, Output}
import weir.lab.runtimes.{Burst, Seed004}

/** The options of `weir runtimes`, turned into a [[RuntimesPlan]] plus where the report goes. */
final case class RuntimesOptions(plan: RuntimesPlan, output: Output)

object RuntimesOptions:

  private val runtimes = Args.runtimes(RuntimesPlan.defaultRuntimes)

  private val processes =
    Args
      .list(
        "processes",
        s"Fiber counts to run, comma-separated or repeated. Default: the seed's ${Seed004.processes.mkString(",")}.",
        "N"
      )
      .withDefault(Nil)
      .mapValidated { texts =>
        if texts.isEmpty then Seed004.processes.validNel
        else
          texts
            .traverse { text =>
              text.toIntOption
                .filter(_ > 0)
                .toValidNel(s"--processes: '$text' is not a positive integer")
            }
            .map(_.distinct)
      }

  private val cycles = Args.positiveInt(
    "cycles",
    "Calls each fiber makes, one after another.",
    RuntimesPlan.defaultCycles
  )

  private val warmUp = Opts
    .option[Long](
      "warm-up",
      s"Calls each probe JVM makes (in whole bursts, the first, cold one included) before its timed bursts, so that the JIT has compiled what is compared before it is timed. 0: time right after the cold burst. Default: ${RuntimesPlan.defaultWarmUpCalls}.",
      metavar = "CALLS"
    )
    .withDefault(RuntimesPlan.defaultWarmUpCalls)
    .mapValidated(n =>
      if n >= 0 then n.validNel
      else s"--warm-up must be 0 or a positive number of calls, got $n".invalidNel
    )

  private val rounds = Args.positiveInt(
    "rounds",
    "Timed bursts per cell, after the warm-up; the report shows their median, min and max.",
    RuntimesPlan.defaultRounds
  )

  private val bursts =
    Args
      .list(
        "burst",
        s"What the fibers do, comma-separated: ${Burst.values.map(b => s"${b.name} (${b.summary})").mkString("; ")}. Default: both.",
        "NAME"
      )
      .withDefault(Nil)
      .mapValidated { names =>
        if names.isEmpty then Burst.values.toList.validNel
        else
          names
            .traverse(name => Burst.named(name).leftMap(msg => s"--burst: $msg").toValidatedNel)
            .map(_.distinct)
      }

  private val stallAfter =
    Args
      .duration(
        "stall-after",
        s"Report a cell as deadlocked when no call finishes for this long. Default: ${RuntimesPlan.defaultStallAfter.toSeconds}s."
      )
      .withDefault(RuntimesPlan.defaultStallAfter)
      .mapValidated(d =>
        if d.toMillis >= 100 then d.validNel
        else s"--stall-after must be at least 100ms, got ${d.toMillis} ms".invalidNel
      )

  val opts: Opts[RuntimesOptions] =
    (runtimes, processes, cycles, bursts, stallAfter, warmUp, rounds, Output.opts).mapN {
      (rs, ps, c, bs, stall, w, r, output) =>
        RuntimesOptions(RuntimesPlan(rs, ps, c, bs, stall, w, r), output)
    }
