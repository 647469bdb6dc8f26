package weir.http

import java.util.concurrent.atomic.{AtomicInteger, AtomicLong, AtomicLongArray}

/** Counters of the delay server, updated from its event loops without locks (atomics: they are on
  * the server's hot path).
  *
  * A request is '''in flight''' from the moment its head is read until its response is written or
  * its connection closes; `/healthz` and `/stats` are not counted. Under HTTP/2 a request is a
  * stream; `http2Connections` counts the connections that spoke HTTP/2 since the start or the last
  * reset (they are counted in `connections` too).
  */
final class ServerStats private[http] ():
  private val inFlight = new AtomicInteger
  private val peak = new AtomicInteger
  private val connections = new AtomicInteger
  private val peakConnections = new AtomicInteger
  private val requests = new AtomicLong
  private val statuses = new AtomicLongArray(600)
  private val dropped = new AtomicLong
  private val stalled = new AtomicLong
  private val arrivals = new AtomicLong
  private val http2 = new AtomicLong

  private[http] def enter(): Unit =
    val _ = requests.incrementAndGet()
    raise(peak, inFlight.incrementAndGet())

  private[http] def leave(): Unit =
    val _ = inFlight.decrementAndGet()

  private[http] def answered(status: Int): Unit = statuses.incrementAndGet(status): Unit
  private[http] def drop(): Unit = dropped.incrementAndGet(): Unit
  private[http] def stall(): Unit = stalled.incrementAndGet(): Unit

  /** Counts a new connection; returns how many are open now. */
  private[http] def opened(): Int =
    val now = connections.incrementAndGet()
    raise(peakConnections, now)
    now

  /** Counts a connection that turned out to speak HTTP/2. */
  private[http] def http2Opened(): Unit = http2.incrementAndGet(): Unit

  private[http] def closed(): Unit =
    val _ = connections.decrementAndGet()

  private def raise(high: AtomicInteger, now: Int): Unit =
    var seen = high.get
    while now > seen && !high.compareAndSet(seen, now) do seen = high.get

  /** The counters now. Concurrent updates may land on either side of the copy. */
  def snapshot: ServerStats.Snapshot =
    val byStatus = (0 until 600).iterator.map(s => s -> statuses.get(s)).filter(_._2 > 0).toMap
    ServerStats.Snapshot(
      requests.get,
      inFlight.get,
      peak.get,
      connections.get,
      peakConnections.get,
      byStatus,
      dropped.get,
      stalled.get,
      http2.get
    )

  /** The arrival number of a request without an id in its path: 0, 1, 2, ... since the start or the
    * last [[reset]].
    */
  def nextArrival(): Long = arrivals.getAndIncrement()

  /** Zeroes the totals and the arrival numbers; the peaks restart from the current values. */
  def reset(): Unit =
    arrivals.set(0)
    requests.set(0)
    dropped.set(0)
    stalled.set(0)
    http2.set(0)
    (0 until 600).foreach(statuses.set(_, 0))
    peak.set(inFlight.get)
    peakConnections.set(connections.get)

object ServerStats:

  /** A copy of the counters. */
  final case class Snapshot(
      requests: Long,
      inFlight: Int,
      peakInFlight: Int,
      connections: Int,
      peakConnections: Int,
      statuses: Map[Int, Long],
      dropped: Long,
      stalled: Long,
      http2Connections: Long = 0
  ):
    def json: String =
      val codes = statuses.toList.sorted.map((s, n) => s"\"$s\":$n").mkString(",")
      s"""{"requests":$requests,"inFlight":$inFlight,"peakInFlight":$peakInFlight,"connections":$connections,""" +
        s""""peakConnections":$peakConnections,"statuses":{$codes},"dropped":$dropped,"stalled":$stalled,"http2Connections":$http2Connections}"""
