package weir.launch

import scala.concurrent.duration.FiniteDuration

/** What a launch did.
  *
  * @param launched
  *   effects started
  * @param succeeded
  *   effects that completed without an error
  * @param failed
  *   effects that raised an error (or were cancelled by the launch's own cancellation)
  * @param peakInFlight
  *   the most effects in flight at once; never more than the concurrency
  * @param elapsed
  *   from the launch's start to its last effect's end
  * @param stopped
  *   true when the stop signal ended launching before the inputs ran out
  */
final case class LaunchStats(
    launched: Long,
    succeeded: Long,
    failed: Long,
    peakInFlight: Int,
    elapsed: FiniteDuration,
    stopped: Boolean
):
  /** Effects finished per second over the elapsed time. */
  def throughput: Double =
    if elapsed.toNanos <= 0 then 0.0 else (succeeded + failed) * 1e9 / elapsed.toNanos.toDouble
