package weir.cli.compare

import cats.data.ValidatedNel
import cats.syntax.all.*
import com.monovore.decline.Opts
import scala.concurrent.duration.*
import weir.Limits
import weir.strategy.Strategy
import weir.cli.common.{Args, Output}
import weir.lab.compare.ComparePlan
import weir.lab.strategy.Strategies
import weir.runtime.RuntimePreset
import weir.lab.workload.Scenario

/** The options of `weir compare`, turned into a [[ComparePlan]] plus how to show it. */
final case class CompareOptions(
    plan: ComparePlan,
    output: Output,
    live: Boolean,
    warmUp: Boolean,
    vsVirtual: Boolean
)

object CompareOptions:

  /** The default time scale: the whole default comparison takes about a minute on 2 cores. */
  val defaultScale: Double = 0.1

  private val scenarioNames = (Scenario.seed.map(_.name) :+ "custom").mkString(", ")
  private val strategyNames = (Strategies.all :+ Strategies.deadlocking).map(_.name).mkString(", ")

  private val scenarios = Args.list(
    "scenario",
    s"Scenarios to run, comma-separated or repeated: $scenarioNames. Default: the seed's three. 'custom' needs --produce-delay and --consume.",
    "NAME"
  )
  private val strategies = Args.list(
    "strategy",
    s"Strategies to run, comma-separated or repeated: $strategyNames. Default: all but real-blocking-queue (the seed's deadlock demonstration).",
    "NAME"
  )
  private val produceDelay = Args
    .duration("produce-delay", "custom scenario: how long a producer takes per batch, e.g. 500ms.")
    .orNone
  private val consume = Opts
    .option[String](
      "consume",
      "custom scenario: handling time range MIN..MAX (uniform, MAX exclusive), e.g. 10ms..1s.",
      metavar = "MIN..MAX"
    )
    .mapValidated(parseRange)
    .orNone
  private val batch = Args.positiveInt("batch", "Tasks per produced batch.", 100).orNone
  private val total = Args.positiveInt("total", "Tasks per run.", 1000).orNone
  private val producers = Args.positiveInt("producers", "Producer partitions per run.", 2).orNone
  private val concurrency = Args.positiveInt("concurrency", "Handler calls in flight at most.", 100)
  private val queue = Args.positiveInt("queue", "Queue capacity for strategies with a queue.", 200)
  private val repetitions = Args.positiveInt(
    "repetitions",
    "Runs per strategy and scenario; the report shows median, min and max.",
    1
  )
  private val seed = Opts
    .option[Long](
      "seed",
      "Random seed of the handling times; repetition i uses seed + i. Default: 1."
    )
    .withDefault(1L)
  private val scale = Opts
    .option[Double](
      "scale",
      s"Multiply every delay by this (0.1 = ten times faster). Default: $defaultScale; --full sets 1."
    )
    .withDefault(defaultScale)
    .mapValidated(s =>
      if s > 0 && s <= 100 then s.validNel else s"--scale must be in (0, 100], got $s".invalidNel
    )
  private val full =
    Opts.flag("full", "Run at the seed's original timing (scale 1): several minutes.").orFalse
  private val noLive = Opts.flag("no-live", "Do not draw the live lanes of P and C events.").orFalse
  private val noWarmUp =
    Opts
      .flag("no-warmup", "Skip the short warm-up run of every strategy (JIT) before measuring.")
      .orFalse
  private val vsVirtual = Opts
    .flag(
      "vs-virtual",
      "Also run every measured run in virtual time (same seeds, no CPU cost) and report real / virtual: the real-time overhead."
    )
    .orFalse

  val opts: Opts[CompareOptions] =
    (
      scenarios,
      strategies,
      produceDelay,
      consume,
      (batch, total, producers).tupled,
      (concurrency, queue).tupled,
      (repetitions, seed, scale, full).tupled,
      Args.runtime(RuntimePreset.Fixed(2)),
      (Output.opts, noLive, noWarmUp, vsVirtual).tupled
    ).tupled.mapValidated {
      case (
            scenarioNames,
            strategyNames,
            delay,
            range,
            (b, t, p),
            (c, q),
            (reps, seed, scale, full),
            runtime,
            (output, noLive, noWarmUp, vsVirtual)
          ) =>
        (
          resolveScenarios(scenarioNames, delay, range, b, t, p),
          resolveStrategies(strategyNames),
          Limits.of(c, q).leftMap(e => s"the ${e.getMessage}").toValidatedNel
        ).mapN { (scenarios, strategies, limits) =>
          val plan = ComparePlan(
            scenarios = scenarios,
            strategies = strategies,
            repetitions = reps,
            seed = seed,
            scale = if full then 1.0 else scale,
            runtime = runtime,
            limits = limits
          )
          CompareOptions(plan, output, live = !noLive, warmUp = !noWarmUp, vsVirtual = vsVirtual)
        }
    }

  private def parseRange(text: String): ValidatedNel[String, (FiniteDuration, FiniteDuration)] =
    text.split("\\.\\.", -1) match
      case Array(min, max) =>
        (Args.parseDuration("consume", min), Args.parseDuration("consume", max)).tupled.andThen {
          (lo, hi) =>
            if lo <= hi then (lo, hi).validNel
            else s"--consume: the minimum ($min) must not exceed the maximum ($max)".invalidNel
        }
      case _ => s"--consume: '$text' is not a range; write MIN..MAX, e.g. 10ms..1s".invalidNel

  private def resolveScenarios(
      names: List[String],
      delay: Option[FiniteDuration],
      range: Option[(FiniteDuration, FiniteDuration)],
      batch: Option[Int],
      total: Option[Int],
      producers: Option[Int]
  ): ValidatedNel[String, List[Scenario]] =
    val wanted = if names.isEmpty then Scenario.seed.map(_.name) else names.distinct
    wanted
      .traverse {
        case "custom" =>
          (delay, range) match
            case (Some(d), Some((lo, hi))) =>
              Scenario.of("custom", d, lo, hi).leftMap(_.getMessage).toValidatedNel
            case _ => "--scenario custom needs both --produce-delay and --consume".invalidNel
        case name =>
          Scenario.seed
            .find(_.name == name)
            .toValidNel(s"--scenario: '$name' is not one of: $scenarioNames")
      }
      .andThen { chosen =>
        chosen.traverse { s =>
          Scenario
            .of(
              s.name,
              s.produceDelay,
              s.consumeMin,
              s.consumeMax,
              batch.getOrElse(s.batchSize),
              total.getOrElse(s.total),
              producers.getOrElse(s.producers)
            )
            .leftMap(e => s"scenario ${s.name}: ${e.getMessage}")
            .toValidatedNel
        }
      }

  private def resolveStrategies(names: List[String]): ValidatedNel[String, List[Strategy]] =
    if names.isEmpty then Strategies.all.validNel
    else
      names.distinct.traverse(name =>
        Strategies.named(name).toValidNel(s"--strategy: '$name' is not one of: $strategyNames")
      )
