package weir.lab.compare

import scala.concurrent.duration.*
import weir.Limits
import weir.strategy.Strategy
import weir.runtime.RuntimePreset
import weir.lab.workload.Scenario

/** What a comparison runs: every strategy on every scenario, `repetitions` times, on a fresh
  * runtime of `runtime` each time. Repetition `i` of every strategy draws its handling times from
  * the random seed `seed + i`, so strategies face the same draws.
  *
  * @param scale
  *   every delay is multiplied by it (0.1 runs ten times faster); 1 is the seed's timing
  */
final case class ComparePlan(
    scenarios: List[Scenario],
    strategies: List[Strategy],
    repetitions: Int,
    seed: Long,
    scale: Double,
    runtime: RuntimePreset,
    limits: Limits
):

  /** How many runs the plan makes. */
  def runs: Int = scenarios.size * strategies.size * repetitions

  /** A run with no event for this long is declared deadlocked: four times the longest quiet gap a
    * healthy run of `scenario` can have, and never under two seconds.
    */
  def stallAfter(scenario: Scenario): FiniteDuration =
    (scenario.scaled(scale).longestQuietGap * 4).max(2.seconds)

  /** How often a run of `scenario` is sampled into its [[Timeline]] at first: the timeline's
    * capacity spans twice the scenario's lower bound, in whole milliseconds (at least 1 ms). A
    * slower run merges its intervals as it goes, so no run records more than the capacity.
    */
  def timelineInterval(scenario: Scenario): FiniteDuration =
    val span = scenario.scaled(scale).lowerBound(limits) * 2
    (span.toMillis / Timeline.defaultCapacity).max(1L).millis

  /** A rough upper estimate of the plan's duration, for progress and ETA. */
  def estimate: FiniteDuration =
    val perRun = scenarios.map(s => s.scaled(scale).lowerBound(limits) * 3 / 2)
    perRun.foldLeft(Duration.Zero)(_ + _) * (strategies.size * repetitions).toLong
