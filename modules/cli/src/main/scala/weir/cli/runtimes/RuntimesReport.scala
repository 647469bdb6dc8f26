package weir.cli.runtimes

import weir.runtime.RuntimePreset
import weir.lab.runtimes.{Burst, ProbeResult, Seed004}

/** What `weir runtimes` measured: one cell per burst × runtime × process count, in plan order, with
  * the seed's figures and the ratios derived from them. Pure: no effects.
  *
  * @param jdk
  *   the probes' JDK (`java.runtime.version`)
  * @param cores
  *   available processors
  */
final case class RuntimesReport(
    plan: RuntimesPlan,
    cells: List[RuntimesReport.Cell],
    jdk: String,
    cores: Int
):
  import RuntimesReport.Cell

  private def wsp(cell: Cell): Option[Cell] =
    cells.find(c =>
      c.burst == cell.burst && c.processes == cell.processes && c.runtime == RuntimePreset.WorkStealing
    )

  /** How many times faster than work stealing on the same burst and process count (work-stealing
    * median / this median, timed bursts after the warm-up); None unless both completed.
    */
  def speedUp(cell: Cell): Option[Double] = againstWsp(cell, _.millis)

  /** [[speedUp]] of the cold bursts: each JVM's first, as a run without warm-up measures. */
  def coldSpeedUp(cell: Cell): Option[Double] = againstWsp(cell, _.coldMillis)

  private def againstWsp(cell: Cell, time: ProbeResult => Option[Double]): Option[Double] =
    for
      w <- wsp(cell)
      base <- time(w.result)
      ours <- time(cell.result) if ours > 0
    yield base / ours

  /** Microseconds of wall time per call in the median timed burst: its time over the burst's calls
    * (all fibers' together, so lower is better and the cores' parallelism is included).
    */
  def microsPerCall(cell: Cell): Option[Double] = perCall(cell, cell.result.millis)

  /** [[microsPerCall]] of the cold burst. */
  def coldMicrosPerCall(cell: Cell): Option[Double] = perCall(cell, cell.result.coldMillis)

  private def perCall(cell: Cell, millis: Option[Double]): Option[Double] =
    millis.map(_ * 1000 / plan.callsPerBurst(cell.processes))

  /** The seed's time for this cell: only the blocking burst on `wsp` or `virtual`. */
  def seedMillis(cell: Cell): Option[Int] =
    seedRow(cell).flatMap { row =>
      cell.runtime match
        case RuntimePreset.WorkStealing => Some(row.workStealingMs)
        case RuntimePreset.Virtual      => Some(row.virtualMs)
        case RuntimePreset.Fixed(_)     => None
    }

  /** The seed's speed-up over work stealing for this cell, as [[speedUp]] computes ours. */
  def seedSpeedUp(cell: Cell): Option[Double] =
    seedRow(cell).flatMap { row =>
      cell.runtime match
        case RuntimePreset.WorkStealing => Some(1.0)
        case RuntimePreset.Virtual      => Some(row.speedUp)
        case RuntimePreset.Fixed(_)     => None
    }

  private def seedRow(cell: Cell): Option[Seed004.Row] =
    if cell.burst == Burst.Blocking then Seed004.row(cell.processes) else None

object RuntimesReport:

  /** One measured (or skipped) cell. */
  final case class Cell(burst: Burst, runtime: RuntimePreset, processes: Int, result: ProbeResult)
