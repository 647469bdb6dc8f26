package weir.engine

import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.atomic.LongAdder
import scala.concurrent.duration.*
import scala.jdk.CollectionConverters.*

/** The engine's live counters: updated by every worker, read at any time by [[snapshot]].
  *
  * Plain striped counters (`LongAdder`) rather than a `Ref`: they are bumped a few times per task
  * on the engine's hot path, from every thread at once, and readers only need each counter to be
  * exact on its own (a snapshot is not one instant across counters: `inFlight` and `queued` are
  * derived and clamped at 0).
  */
private[weir] final class EngineStats private ():
  // Invariants, each side exact once the run has settled: taken = started + notStarted + queued;
  // started = succeeded + failed + cancelled + inFlight. A task ends in exactly one of succeeded,
  // failed (by class), cancelled (in flight when the run ended) or not-started.
  private val takenCount = new LongAdder
  private val batchCount = new LongAdder
  private val startedCount = new LongAdder
  private val succeededCount = new LongAdder
  private val failedCounts = new ConcurrentHashMap[FailureClass, LongAdder]
  private val failedCount = new LongAdder
  private val cancelledCount = new LongAdder
  private val notStartedCount = new LongAdder
  private val retriedCount = new LongAdder
  private val histogram = LatencyHistogram.create()

  private[engine] def taken(n: Int): Unit =
    takenCount.add(n.toLong)
    batchCount.increment()
  private[engine] def started(): Unit = startedCount.increment()

  /** `n` tasks started at once (a share). */
  private[engine] def started(n: Int): Unit = startedCount.add(n.toLong)

  /** `n` tasks of a share succeeded, each recorded with the share's mean time `meanNanos`. */
  private[engine] def succeededMany(n: Int, meanNanos: Long): Unit =
    if n > 0 then
      histogram.record(meanNanos, n)
      succeededCount.add(n.toLong)

  /** `n` tasks taken and never started (after a stop, or a fail-fast failure). */
  private[engine] def notStarted(n: Int): Unit = notStartedCount.add(n.toLong)

  /** `n` tasks of a share counted as started but not run (a stop or a failure ended the share
    * before them): not started after all.
    */
  private[engine] def endedNotRun(n: Int): Unit =
    if n > 0 then
      startedCount.add(-n.toLong)
      notStartedCount.add(n.toLong)

  private[engine] def retried(): Unit = retriedCount.increment()

  /** Counts one task that succeeded; its latency, when timed, stands for `weight` tasks (a sample).
    */
  private[engine] def succeeded(latencyNanos: Long, weight: Int = 1): Unit =
    histogram.record(latencyNanos, weight)
    succeededCount.increment()

  /** Counts one started task that failed for good, under `failureClass`. A latency of 0 is not
    * recorded (the task was not timed).
    */
  private[engine] def failed(
      failureClass: FailureClass,
      latencyNanos: Long,
      weight: Int = 1
  ): Unit =
    if latencyNanos > 0 then histogram.record(latencyNanos, weight)
    failedCounts.computeIfAbsent(failureClass, _ => new LongAdder).increment()
    failedCount.increment()

  /** Called once the run has ended: every task still in flight was cancelled with it, and every
    * task taken from the source and never started was left behind. Counts them as cancelled and not
    * started.
    */
  private[engine] def settleUnfinished(): Unit =
    val inFlight =
      startedCount.sum - (succeededCount.sum + failedCount.sum + cancelledCount.sum)
    if inFlight > 0 then cancelledCount.add(inFlight)
    val neverStarted = takenCount.sum - startedCount.sum - notStartedCount.sum
    if neverStarted > 0 then notStartedCount.add(neverStarted)

  /** Tasks that ran to an end so far: succeeded or failed (not cancelled, not never started). */
  def ended: Long = succeededCount.sum + failedCount.sum

  /** The latency histogram's counts now, for a later [[snapshot]]'s recent percentiles. */
  def latencyCounts: Array[Long] = histogram.counts

  /** The counters now; `elapsed` since the start, `rate` as the caller computes it, recent
    * latencies since `since` (an earlier [[latencyCounts]]; all of them when `None`), and the
    * concurrency limit the caller knows.
    */
  def snapshot(
      elapsed: FiniteDuration,
      rate: Double,
      since: Option[Array[Long]],
      concurrencyLimit: Int
  ): Snapshot =
    val succeeded = succeededCount.sum
    val failed = failedCount.sum
    val cancelled = cancelledCount.sum
    val notStarted = notStartedCount.sum
    val started = startedCount.sum
    val taken = takenCount.sum
    val latency = histogram.percentiles
    Snapshot(
      elapsed = elapsed,
      taken = taken,
      batches = batchCount.sum,
      succeeded = succeeded,
      failed = failedCounts.asScala.view.mapValues(_.sum).toMap,
      cancelled = cancelled,
      notStarted = notStarted,
      retried = retriedCount.sum,
      inFlight = math.max(0L, started - succeeded - failed - cancelled),
      queued = math.max(0L, taken - started - notStarted),
      ratePerSecond = rate,
      latency = latency,
      recentLatency = since.fold(latency)(histogram.percentilesSince),
      concurrencyLimit = concurrencyLimit
    )

private[weir] object EngineStats:

  /** Counters at zero. */
  def create(): EngineStats = new EngineStats()
