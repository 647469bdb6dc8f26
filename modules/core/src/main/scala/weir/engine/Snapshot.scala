package weir.engine

import scala.concurrent.duration.FiniteDuration

/** The engine's statistics at one moment of a run.
  *
  * @param elapsed
  *   since the run started
  * @param taken
  *   tasks taken from the source so far
  * @param batches
  *   chunks taken from the source so far (a producer's batches, when it yields one chunk a batch)
  * @param succeeded
  *   tasks whose handler returned a value
  * @param failed
  *   tasks that ran and failed for good, by [[FailureClass]]
  * @param cancelled
  *   tasks in flight when the run ended (a stop's grace period ran out, a fail-fast failure, or the
  *   run was cancelled): cancelled, neither succeeded nor failed
  * @param notStarted
  *   tasks taken from the source but never started (after a stop or a fail-fast failure)
  * @param retried
  *   attempts that were retries (a task tried three times counts 2)
  * @param inFlight
  *   tasks started and not yet ended
  * @param queued
  *   tasks taken from the source and not yet started (in the strategy's buffers)
  * @param ratePerSecond
  *   tasks ended per second: since the previous snapshot in [[Engine.snapshots]], else since the
  *   start
  * @param latency
  *   of the tasks ended so far, from first attempt to end (in [[Engine.run]] without a rate or an
  *   adaptive limit, each task of a share is recorded with the share's mean: see [[ShareRunner]])
  * @param recentLatency
  *   the same, of the tasks ended since the previous snapshot in [[Engine.snapshots]] (else since
  *   the start)
  * @param concurrencyLimit
  *   tasks (attempts) allowed in flight now: the fixed concurrency, or the adaptive limit's value
  */
final case class Snapshot(
    elapsed: FiniteDuration,
    taken: Long,
    batches: Long,
    succeeded: Long,
    failed: Map[FailureClass, Long],
    cancelled: Long,
    notStarted: Long,
    retried: Long,
    inFlight: Long,
    queued: Long,
    ratePerSecond: Double,
    latency: Percentiles,
    recentLatency: Percentiles,
    concurrencyLimit: Int
):
  /** Tasks that failed, of every class (not the cancelled, not those never started). */
  def failedTotal: Long = failed.values.sum

  /** Tasks that ran to an end: succeeded or failed. */
  def ended: Long = succeeded + failedTotal

  /** Tasks the run took but did not finish: still queued, in flight, cancelled or never started.
    */
  def unfinished: Long = queued + inFlight + cancelled + notStarted
