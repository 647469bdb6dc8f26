package weir.engine

import java.util.concurrent.atomic.{AtomicLong, AtomicLongArray}
import scala.concurrent.duration.*

/** Counts durations in constant memory (about 30 KB), for percentiles at any time while a run goes
  * on, of everything so far or of what was recorded since an earlier [[counts]].
  *
  * Log-linear buckets, as HdrHistogram lays them out (core depends on cats-effect and fs2 only, so
  * it is not used here): every value below 64 ns has a bucket of its own, and each power of two
  * above is cut into 64 equal buckets, so a percentile is off by less than 1/64 (1.6 %) of its
  * value. Recording is one atomic increment in a stripe of its own thread's (four stripes, so that
  * threads recording at once do not fight over one cache line, which cost the load client a visible
  * share of its CPU with one shared histogram); safe from any number of threads at once. A reader
  * sees each bucket's count as of its read, not one instant's snapshot of all.
  */
private[weir] final class LatencyHistogram private ():
  import LatencyHistogram.*

  private val stripes = Array.fill(Stripes)(new AtomicLongArray(Buckets))
  private val maxNanos = new AtomicLong(0L)

  /** Counts one duration of `nanos` (negative counts as 0), `weight` times (a sample standing for
    * `weight` durations).
    */
  def record(nanos: Long, weight: Int = 1): Unit =
    val v = math.max(nanos, 0L)
    // identityHashCode, not Thread.threadId: that needs JDK 19, and weir runs on 17 too.
    stripes(System.identityHashCode(Thread.currentThread) & (Stripes - 1))
      .addAndGet(bucketOf(v), weight.toLong): Unit
    // Read first: the maximum rarely moves, and a plain read costs no cache-line transfer.
    if v > maxNanos.get then maxNanos.accumulateAndGet(v, math.max): Unit

  /** Every bucket's count now: pass it to [[percentilesSince]] later. */
  def counts: Array[Long] =
    val sum = new Array[Long](Buckets)
    stripes.foreach { stripe =>
      var i = 0
      while i < Buckets do
        sum(i) += stripe.get(i)
        i += 1
    }
    sum

  /** The percentiles of everything recorded so far. */
  def percentiles: Percentiles = percentilesOf(counts, maxNanos.get)

  /** The percentiles of what was recorded after `before` (an earlier [[counts]]); its maximum is
    * the top of the highest bucket used since, so within 1.6 % like the others.
    */
  def percentilesSince(before: Array[Long]): Percentiles =
    val now = counts
    var i = 0
    while i < Buckets do
      now(i) -= before(i)
      i += 1
    var top = Buckets - 1
    while top >= 0 && now(top) <= 0 do top -= 1
    percentilesOf(now, if top < 0 then 0L else math.min(highestIn(top), maxNanos.get))

  private def percentilesOf(counts: Array[Long], max: Long): Percentiles =
    val total = counts.sum
    def at(q: Double): FiniteDuration =
      if total == 0 then Duration.Zero
      else
        val rank = math.max(1L, math.ceil(q * total.toDouble).toLong)
        var seen = 0L
        var i = 0
        while i < Buckets && seen + counts(i) < rank do
          seen += counts(i)
          i += 1
        math.min(highestIn(math.min(i, Buckets - 1)), max).nanos
    if total == 0 then Percentiles.empty
    else Percentiles(total, at(0.5), at(0.9), at(0.99), at(0.999), max.nanos)

private[weir] object LatencyHistogram:
  private val Stripes = 4 // a power of two
  private val SubBits = 6
  private val Sub = 1 << SubBits
  // 64 exact buckets, then 64 for each power of two from 2^6 up to 2^62.
  private[engine] val Buckets = Sub + (63 - SubBits) * Sub

  private[engine] def bucketOf(v: Long): Int =
    if v < Sub then v.toInt
    else
      val top = 63 - java.lang.Long.numberOfLeadingZeros(v)
      val shift = top - SubBits
      Sub + shift * Sub + ((v >>> shift).toInt - Sub)

  /** The largest value that falls in bucket `i`. */
  private[engine] def highestIn(i: Int): Long =
    if i < Sub then i.toLong
    else
      val shift = (i - Sub) / Sub
      val sub = (i - Sub) % Sub + Sub
      val low = sub.toLong << shift
      low + (1L << shift) - 1

  /** An empty histogram. */
  def create(): LatencyHistogram = new LatencyHistogram()
