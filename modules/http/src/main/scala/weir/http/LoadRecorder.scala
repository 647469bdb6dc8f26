package weir.http

import java.util.concurrent.ConcurrentLinkedQueue
import java.util.concurrent.atomic.{
  AtomicInteger,
  AtomicLong,
  AtomicLongArray,
  AtomicReferenceArray
}
import org.HdrHistogram.{Histogram, Recorder}
import scala.jdk.CollectionConverters.*

/** What a load has measured so far, recorded from any thread without locks on the request path
  * (atomics and HdrHistogram `Recorder`s, which are wait-free for writers). It is fed by the
  * engine's results: one call per request when it ends, with its final outcome.
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
  private val samples = new AtomicReferenceArray[String](ErrorClass.values.length)
  private val badLines = new ConcurrentLinkedQueue[RequestFailed.BadLine]()
  private val badLinesKept = new AtomicInteger
  private val inFlight = new AtomicInteger
  private val peak = new AtomicInteger
  private val refusedInARow = new AtomicLong
  private val stripes = Array.fill(LoadRecorder.Stripes)(new Recorder(3))
  private val spares = new Array[Histogram | Null](LoadRecorder.Stripes)
  private val interval = new Histogram(3)
  private val total = new Histogram(3)

  /** An attempt starts: counts toward the peak in flight. */
  def started(): Unit =
    val now = inFlight.incrementAndGet()
    var seen = peak.get
    while now > seen && !peak.compareAndSet(seen, now) do seen = peak.get

  /** An attempt ended (in any way). */
  def ended(): Unit =
    val _ = inFlight.decrementAndGet()

  /** A request got a response with `status` after `latencyNanos`. */
  def answered(status: Int, latencyNanos: Long): Unit =
    statuses.incrementAndGet(if status >= 0 && status < 600 then status else 0): Unit
    stripes(System.identityHashCode(Thread.currentThread) & (LoadRecorder.Stripes - 1))
      .recordValue(math.max(0L, latencyNanos / 1000))
    if refusedInARow.get != 0 then refusedInARow.set(0)

  /** A request ended without a response, for good. Returns the refused connections in a row. */
  def failed(error: ErrorClass, message: String): Long =
    errors.incrementAndGet(error.ordinal): Unit
    if samples.get(error.ordinal) == null then
      samples.compareAndSet(error.ordinal, null, message): Unit
    if error == ErrorClass.Refused then refusedInARow.incrementAndGet() else refusedInARow.get

  /** A line of the URL file that is not a URL: counted, and the first [[LoadRecorder.BadLinesKept]]
    * kept with their line numbers.
    */
  def badLine(bad: RequestFailed.BadLine): Unit =
    errors.incrementAndGet(ErrorClass.Input.ordinal): Unit
    if badLinesKept.incrementAndGet() <= LoadRecorder.BadLinesKept then badLines.add(bad): Unit

  /** The counters now, and the latencies since the previous [[snapshot]] or [[tick]] and since the
    * start.
    */
  def snapshot: LoadRecorder.Snapshot = synchronized {
    val recent = drain()
    LoadRecorder.Snapshot(
      inFlight.get,
      peak.get,
      (0 until 600).iterator.map(c => c -> statuses.get(c)).filter(_._2 > 0).toMap,
      ErrorClass.values.iterator.map(e => e -> errors.get(e.ordinal)).filter(_._2 > 0).toMap,
      ErrorClass.values.iterator.flatMap(e => Option(samples.get(e.ordinal)).map(e -> _)).toMap,
      badLines.asScala.toList.sortBy(_.line),
      recent,
      Latency.of(total),
      total.copy()
    )
  }

  /** The counts now and the latencies since the previous [[tick]] or [[snapshot]]: what a
    * [[LoadTimeline]] reads once an interval (cheaper than a snapshot: no copy of the histogram).
    */
  def tick: LoadRecorder.Tick = synchronized {
    val recent = drain()
    var answered, errorStatuses = 0L
    var code = 0
    while code < 600 do
      val n = statuses.get(code)
      answered += n
      if code >= 400 || code < 100 then errorStatuses += n
      code += 1
    val failures = ErrorClass.values.iterator
      .map(e => e.label -> errors.get(e.ordinal))
      .filter(_._2 > 0)
      .toMap ++ Option.when(errorStatuses > 0)(LoadRecorder.ErrorStatus -> errorStatuses)
    var failed = 0L
    ErrorClass.values.foreach(e => failed += errors.get(e.ordinal))
    LoadRecorder.Tick(inFlight.get, answered + failed, failures, recent)
  }

  // Moves the latencies recorded since the last call into `interval` (returned) and `total`.
  private def drain(): Latency =
    interval.reset()
    var i = 0
    while i < stripes.length do
      val recent = stripes(i).getIntervalHistogram(spares(i))
      interval.add(recent)
      spares(i) = recent
      i += 1
    total.add(interval)
    Latency.of(interval)

object LoadRecorder:
  private val Stripes = 16 // a power of two

  /** Bad lines of a URL file kept with their text for the report (all are counted). */
  val BadLinesKept = 20

  /** The failure class of answers with a status of 400 or more, in a [[Tick]]. */
  val ErrorStatus = "status>=400"

  /** What a [[LoadTimeline]] reads: requests in flight, finished so far (answered, or failed for
    * good without an answer), failures so far by class (an [[ErrorClass]]'s label, or
    * [[ErrorStatus]]), and the latencies since the previous tick.
    */
  final case class Tick(
      inFlight: Int,
      finished: Long,
      failures: Map[String, Long],
      recent: Latency
  )

  object Tick:
    val zero: Tick = Tick(0, 0, Map.empty, Latency.empty)

  /** The counters at one moment; `histogram` holds every latency so far (µs). */
  final case class Snapshot(
      inFlight: Int,
      peakInFlight: Int,
      statuses: Map[Int, Long],
      errors: Map[ErrorClass, Long],
      samples: Map[ErrorClass, String],
      badLines: List[RequestFailed.BadLine],
      recent: Latency,
      overall: Latency,
      histogram: Histogram
  ):
    def responses: Long = statuses.values.sum
    def errorCount: Long = errors.values.sum
    def finished: Long = responses + errorCount
