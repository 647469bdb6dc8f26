package weir.cli.runtimes

import weir.runtime.RuntimePreset

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

  /** How many times faster than work stealing on the same burst and process count (work-stealing
    * time / this time); None unless both completed.
    */
  def speedUp(cell: Cell): Option[Double] =
    cells
      .find(c =>
        c.burst == cell.burst && c.processes == cell.processes && c.runtime == RuntimePreset.WorkStealing
      )
      .filter(wsp => wsp.result.completed && cell.result.completed && cell.result.millis > 0)
      .map(wsp => wsp.result.millis / cell.result.millis)

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
