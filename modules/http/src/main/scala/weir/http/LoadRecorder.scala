package weir.http

import java.util.concurrent.atomic.{AtomicInteger, AtomicLong, AtomicLongArray}
import org.HdrHistogram.{Histogram, Recorder}

/** What a load has measured so far, recorded from any thread without locks on the request path
  * (atomics and an HdrHistogram `Recorder`, which is wait-free for writers).
  *
  * Latencies (of requests that got an HTTP response, any status) are kept in microseconds with
  * three significant digits. Readers ([[snapshot]]) are serialised among themselves.
  */
final class LoadRecorder:
  private val statuses = new AtomicLongArray(600)
  private val errors = new AtomicLongArray(ErrorClass.values.length)
  private val launched = new AtomicLong
  private val inFlight = new AtomicInteger
  private val peak = new AtomicInteger
  private val refusedInARow = new AtomicLong
  private val cancelled = new AtomicLong
  private val recorder = new Recorder(3)
  private val total = new Histogram(3)
  private var spare: Histogram | Null = null

  /** A request starts. */
  def started(): Unit =
    val _ = launched.incrementAndGet()
    val now = inFlight.incrementAndGet()
    var seen = peak.get
    while now > seen && !peak.compareAndSet(seen, now) do seen = peak.get

  /** A request got a response with `status` after `latencyNanos`. */
  def answered(status: Int, latencyNanos: Long): Unit =
    statuses.incrementAndGet(if status >= 0 && status < 600 then status else 0): Unit
    recorder.recordValue(math.max(0L, latencyNanos / 1000))
    refusedInARow.set(0)
    val _ = inFlight.decrementAndGet()

  /** A request ended without a response. Returns the refused connections in a row so far. */
  def failed(error: ErrorClass): Long =
    errors.incrementAndGet(error.ordinal): Unit
    val _ = inFlight.decrementAndGet()
    if error == ErrorClass.Refused then refusedInARow.incrementAndGet() else refusedInARow.get

  /** A started request was cancelled before it ended (the run was cut short). */
  def abandoned(): Unit =
    val _ = cancelled.incrementAndGet()
    val _ = inFlight.decrementAndGet()

  /** The counters now, and the latencies since the previous snapshot and since the start. */
  def snapshot: LoadRecorder.Snapshot = synchronized {
    val interval = recorder.getIntervalHistogram(spare)
    total.add(interval)
    val s = LoadRecorder.Snapshot(
      launched.get,
      inFlight.get,
      cancelled.get,
      peak.get,
      (0 until 600).iterator.map(c => c -> statuses.get(c)).filter(_._2 > 0).toMap,
      ErrorClass.values.iterator.map(e => e -> errors.get(e.ordinal)).filter(_._2 > 0).toMap,
      Latency.of(interval),
      Latency.of(total)
    )
    spare = interval
    s
  }

object LoadRecorder:

  /** The counters at one moment. */
  final case class Snapshot(
      launched: Long,
      inFlight: Int,
      abandoned: Long,
      peakInFlight: Int,
      statuses: Map[Int, Long],
      errors: Map[ErrorClass, Long],
      recent: Latency,
      overall: Latency
  ):
    def responses: Long = statuses.values.sum
    def errorCount: Long = errors.values.sum
    def finished: Long = responses + errorCount

    /** Requests that failed: no response, or a status of 400 or more. */
    def failures: Long = errorCount + statuses.collect {
      case (s, n) if s >= 400 || s < 100 => n
    }.sum
