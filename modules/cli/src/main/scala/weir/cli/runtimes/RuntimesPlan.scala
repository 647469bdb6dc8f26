package weir.cli.runtimes

import scala.concurrent.duration.*
import weir.runtime.RuntimePreset
import weir.lab.runtimes.Burst

/** What `weir runtimes` will run: every burst × every process count × every runtime, each cell in a
  * fresh JVM that runs the burst cold once, warms up, then times it (see [[ProbeMain]]).
  *
  * @param cycles
  *   calls each fiber makes one after another, in every burst
  * @param warmUpCalls
  *   calls made in each JVM (in whole bursts, the cold one included) before the timed bursts
  * @param rounds
  *   timed bursts per cell; the report gives their median, min and max
  * @param stallAfter
  *   a cell with no finished call for this long is reported as deadlocked, and the larger process
  *   counts of that runtime and burst are skipped
  */
final case class RuntimesPlan(
    runtimes: List[RuntimePreset],
    processes: List[Int],
    cycles: Int,
    bursts: List[Burst],
    stallAfter: FiniteDuration,
    warmUpCalls: Long = RuntimesPlan.defaultWarmUpCalls,
    rounds: Int = RuntimesPlan.defaultRounds
):
  /** The cells in the order they run: burst, then runtime, then growing process counts. */
  def cells: List[(Burst, RuntimePreset, Int)] =
    for
      burst <- bursts
      runtime <- runtimes
      n <- processes.sorted
    yield (burst, runtime, n)

  /** Calls in one burst of `processes` fibers. */
  def callsPerBurst(processes: Int): Long = processes.toLong * cycles

object RuntimesPlan:

  /** Calls per fiber in a burst: enough that the smallest timed burst (10 fibers, 10 000 calls)
    * lasts tens of milliseconds on a warm JVM, and the whole default sweep a few minutes (README,
    * "weir runtimes"). Seed 004 does not state its own.
    */
  val defaultCycles: Int = 1000

  /** Calls each probe JVM makes before its timed bursts: by then the JIT has compiled the
    * virtual-thread path, whose cost per call stops falling (README, "weir runtimes").
    */
  val defaultWarmUpCalls: Long = 1000000L

  /** Timed bursts per cell. */
  val defaultRounds: Int = 3

  val defaultStallAfter: FiniteDuration = 3.seconds

  /** The runtimes compared by default: the seed's two and a fixed pool of one thread per core. */
  def defaultRuntimes: List[RuntimePreset] =
    List(
      RuntimePreset.WorkStealing,
      RuntimePreset.Fixed(Runtime.getRuntime.availableProcessors()),
      RuntimePreset.Virtual
    )
