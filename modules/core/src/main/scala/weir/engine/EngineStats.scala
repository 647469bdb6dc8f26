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
final class EngineStats private ():
  private val takenCount = new LongAdder
  private val batchCount = new LongAdder
  private val startedCount = new LongAdder
  private val succeededCount = new LongAdder
  private val failedCounts = new ConcurrentHashMap[String, LongAdder]
  private val failedCount = new LongAdder
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

  /** `n` tasks taken and never started: a share taken after a stop. */
  private[engine] def notStarted(n: Int): Unit =
    startedCount.add(n.toLong)
    addFailed("not-started", n.toLong)

  /** `n` tasks of a share counted as started but not run (a failure ended the share before them).
    */
  private[engine] def endedNotRun(n: Int): Unit = addFailed("not-started", n.toLong)

  private def addFailed(failureClass: String, n: Long): Unit =
    if n > 0 then
      failedCounts.computeIfAbsent(failureClass, _ => new LongAdder).add(n)
      failedCount.add(n)
  private[engine] def retried(): Unit = retriedCount.increment()

  /** Counts one task that succeeded; its latency, when timed, stands for `weight` tasks (a sample).
    */
  private[engine] def succeeded(latencyNanos: Long, weight: Int = 1): Unit =
    histogram.record(latencyNanos, weight)
    succeededCount.increment()

  /** Counts one task ended other than by success; `wasStarted` is false for a task never started
    * (it then counts as ended without having been in flight). A latency of 0 is not recorded (the
    * task was not timed).
    */
  private[engine] def failed(
      failureClass: String,
      latencyNanos: Long,
      wasStarted: Boolean,
      weight: Int = 1
  ): Unit =
    if !wasStarted then startedCount.increment()
    else if latencyNanos > 0 then histogram.record(latencyNanos, weight)
    failedCounts.computeIfAbsent(failureClass, _ => new LongAdder).increment()
    failedCount.increment()

  /** Called once the run has ended: every task still in flight was cancelled with it, and every
    * task taken from the source and never started was left behind. Counts them as `cancelled` and
    * `not-started`.
    */
  private[engine] def settleUnfinished(): Unit =
    def add(failureClass: String, n: Long): Unit =
      if n > 0 then
        failedCounts.computeIfAbsent(failureClass, _ => new LongAdder).add(n)
        failedCount.add(n)
    val inFlight = startedCount.sum - (succeededCount.sum + failedCount.sum)
    add("cancelled", inFlight)
    val neverStarted = takenCount.sum - startedCount.sum
    startedCount.add(math.max(0L, neverStarted))
    add("not-started", neverStarted)

  /** Tasks ended so far. */
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
    val ended = succeededCount.sum + failedCount.sum
    val started = startedCount.sum
    val latency = histogram.percentiles
    Snapshot(
      elapsed = elapsed,
      taken = takenCount.sum,
      batches = batchCount.sum,
      succeeded = succeededCount.sum,
      failed = failedCounts.asScala.view.mapValues(_.sum).toMap,
      retried = retriedCount.sum,
      inFlight = math.max(0L, started - ended),
      queued = math.max(0L, takenCount.sum - started),
      ratePerSecond = rate,
      latency = latency,
      recentLatency = since.fold(latency)(histogram.percentilesSince),
      concurrencyLimit = concurrencyLimit
    )

object EngineStats:

  /** Counters at zero. */
  def create(): EngineStats = new EngineStats()
