package weir.lab.compare

import scala.concurrent.duration.*
import weir.engine.{Percentiles, Snapshot}

/** Engine snapshots with only the counts a lane and a timeline read. */
object Snapshots:

  def at(elapsed: FiniteDuration, batches: Long, ended: Long, inFlight: Long): Snapshot =
    Snapshot(
      elapsed = elapsed,
      taken = batches * 100,
      batches = batches,
      succeeded = ended,
      failed = Map.empty,
      cancelled = 0,
      notStarted = 0,
      retried = 0,
      inFlight = inFlight,
      queued = 0,
      ratePerSecond = 0,
      latency = Percentiles.empty,
      recentLatency = Percentiles.empty,
      concurrencyLimit = 100
    )
