package weir.http

import java.util.concurrent.atomic.{AtomicInteger, AtomicLong, AtomicLongArray}
import org.HdrHistogram.{Histogram, Recorder}

/** What a load has measured so far, recorded from any thread without locks on the request path
  * (atomics and HdrHistogram `Recorder`s, which are wait-free for writers).
  *
  * Latencies go to one of 16 recorders chosen by the recording thread, so that event loops
  * recording at once do not write the same memory (one shared recorder cost a visible share of the
  * client's CPU at 100 000 requests a second); [[snapshot]] adds them up.
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
  private val stripes = Array.fill(LoadRecorder.Stripes)(new Recorder(3))
  private val spares = new Array[Histogram | Null](LoadRecorder.Stripes)
  private val interval = new Histogram(3)
  private val total = new Histogram(3)

  /** A request starts. */
  def started(): Unit =
    val _ = launched.incrementAndGet()
    val now = inFlight.incrementAndGet()
    var seen = peak.get
    while now > seen && !peak.compareAndSet(seen, now) do seen = peak.get

  /** A request got a response with `status` after `latencyNanos`. */
  def answered(status: Int, latencyNanos: Long): Unit =
    statuses.incrementAndGet(if status >= 0 && status < 600 then status else 0): Unit
    stripes(System.identityHashCode(Thread.currentThread) & (LoadRecorder.Stripes - 1))
      .recordValue(math.max(0L, latencyNanos / 1000))
    if refusedInARow.get != 0 then refusedInARow.set(0)
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
    interval.reset()
    var i = 0
    while i < stripes.length do
      val recent = stripes(i).getIntervalHistogram(spares(i))
      interval.add(recent)
      spares(i) = recent
      i += 1
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
    s
  }

object LoadRecorder:
  private val Stripes = 16 // a power of two

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
