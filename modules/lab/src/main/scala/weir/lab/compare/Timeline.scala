package weir.lab.compare

import cats.kernel.Monoid
import scala.concurrent.duration.*
import weir.engine.Snapshot

/** What happened during one run, interval by interval: batches taken, tasks started and ended, and
  * tasks in flight. Recorded from the engine's snapshots in constant memory, on weir's one
  * [[weir.engine.Timeline]]: at most `capacity` intervals; when a run outlasts them, neighbouring
  * intervals are merged in pairs and the interval doubles, so a run of any length ends with between
  * `capacity / 2` and `capacity` intervals (or fewer, for a run shorter than that).
  *
  * Interval `i` covers `[i * interval, (i + 1) * interval)` of the run's time (the engine's
  * `Snapshot.elapsed`). A snapshot's new counts go to the interval its time falls in, so every
  * count of the last snapshot recorded is in exactly one interval: the sums of `batches`, `started`
  * and `ended` over the intervals equal the last snapshot's counts.
  *
  * @param counts
  *   the buckets, one per interval from the start, up to the last snapshot recorded
  * @param last
  *   the counts of the last snapshot recorded, from which the next one's new counts are taken
  */
final case class Timeline private (
    counts: weir.engine.Timeline[Timeline.Bucket],
    last: Timeline.Bucket
):
  import Timeline.Bucket

  /** The most intervals kept. */
  def capacity: Int = counts.capacity

  /** The time each bucket covers. */
  def interval: FiniteDuration = counts.width

  /** One per interval from the start, up to the last snapshot recorded. */
  def buckets: Vector[Bucket] = counts.intervals

  /** This timeline with `snapshot` recorded; snapshots must come in time order. */
  def record(snapshot: Snapshot): Timeline =
    val started = snapshot.ended + snapshot.inFlight
    val added = Bucket(
      batches = math.max(0L, snapshot.batches - last.batches),
      started = math.max(0L, started - last.started),
      ended = math.max(0L, snapshot.ended - last.ended),
      inFlight = snapshot.inFlight
    )
    Timeline(
      counts.add(snapshot.elapsed, added),
      Bucket(
        math.max(last.batches, snapshot.batches),
        math.max(last.started, started),
        math.max(last.ended, snapshot.ended),
        snapshot.inFlight
      )
    )

  /** How long the recorded part of the run is: the end of the last interval. */
  def span: FiniteDuration = counts.span

  /** Batches taken over the whole run. */
  def batches: Long = buckets.map(_.batches).sum

  /** Tasks ended over the whole run. */
  def ended: Long = buckets.map(_.ended).sum

object Timeline:

  /** The intervals kept at most by [[start]]'s default. */
  val defaultCapacity: Int = 200

  /** One interval's counts.
    *
    * @param batches
    *   batches (chunks) taken from the producers in the interval
    * @param started
    *   tasks whose handler started in the interval
    * @param ended
    *   tasks that ended in the interval
    * @param inFlight
    *   the most tasks in flight seen at a snapshot in the interval (0 when none was taken in it)
    */
  final case class Bucket(batches: Long, started: Long, ended: Long, inFlight: Long):
    /** Counts added, the higher of the in-flight figures. */
    def +(other: Bucket): Bucket =
      Bucket(
        batches + other.batches,
        started + other.started,
        ended + other.ended,
        math.max(inFlight, other.inFlight)
      )

  object Bucket:
    val zero: Bucket = Bucket(0L, 0L, 0L, 0L)

    /** Buckets merged as [[weir.engine.Timeline]] merges them: counts added. */
    given Monoid[Bucket] with
      def empty: Bucket = zero
      def combine(x: Bucket, y: Bucket): Bucket = x + y

  /** An empty timeline of intervals of `interval` (at least 1 ms), keeping at most `capacity`
    * intervals (at least 2, rounded up to an even number).
    */
  def start(interval: FiniteDuration, capacity: Int = defaultCapacity): Timeline =
    Timeline(weir.engine.Timeline.start[Bucket](interval, capacity), Bucket.zero)
