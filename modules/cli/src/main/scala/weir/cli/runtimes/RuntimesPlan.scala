package weir.cli.runtimes

import scala.concurrent.duration.*
import weir.runtime.RuntimePreset

/** What `weir runtimes` will run: every burst × every process count × every runtime, each cell in a
  * fresh JVM.
  *
  * @param cycles
  *   calls each fiber makes one after another
  * @param stallAfter
  *   a cell with no finished call for this long is reported as deadlocked, and the larger process
  *   counts of that runtime and burst are skipped
  */
final case class RuntimesPlan(
    runtimes: List[RuntimePreset],
    processes: List[Int],
    cycles: Int,
    bursts: List[Burst],
    stallAfter: FiniteDuration
):
  /** The cells in the order they run: burst, then runtime, then growing process counts. */
  def cells: List[(Burst, RuntimePreset, Int)] =
    for
      burst <- bursts
      runtime <- runtimes
      n <- processes.sorted
    yield (burst, runtime, n)

object RuntimesPlan:

  /** Calls per fiber by default. Chosen so the seed's largest cell (500 processes, work stealing,
    * blocking) runs for a few seconds: about 5 s on a shared 2-core machine with JDK 25, and the
    * whole default sweep about a minute (README, "weir runtimes").
    */
  val defaultCycles: Int = 200

  val defaultStallAfter: FiniteDuration = 3.seconds

  /** The runtimes compared by default: the seed's two and a fixed pool of one thread per core. */
  def defaultRuntimes: List[RuntimePreset] =
    List(
      RuntimePreset.WorkStealing,
      RuntimePreset.Fixed(Runtime.getRuntime.availableProcessors()),
      RuntimePreset.Virtual
    )
