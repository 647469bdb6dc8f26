package weir.http

import scala.concurrent.duration.*

/** The most a closed-loop client can do against a delay server, by Little's law.
  *
  * In steady state `c` requests in flight with a mean delay `m` finish `c / m` per second. A finite
  * run of `n` requests cannot stay there to its end: its last requests drain with fewer than `c` in
  * flight. [[finiteIdeal]] plays the run with zero client overhead (each of `c` slots takes the
  * next id as soon as it is free; request `i` lasts exactly the server's delay for `i`) and reports
  * its makespan.
  */
private[weir] object LittleLaw:

  /** Requests per second in steady state: `concurrency / mean`. */
  def ceiling(concurrency: Int, mean: FiniteDuration): Double =
    if mean.toNanos <= 0 then Double.PositiveInfinity else concurrency * 1e9 / mean.toNanos

  /** The makespan of `n` requests at `concurrency` with zero overhead; `O(n log c)` time and `O(c)`
    * memory (ten million requests take about a second).
    */
  def finiteIdeal(n: Long, concurrency: Int, delay: Delay, seed: Long): FiniteDuration =
    val slots = math.max(1L, math.min(n, concurrency.toLong)).toInt
    val heap = new Array[Long](slots) // min-heap of the times the slots become free (ns)
    var end = 0L
    var i = 0L
    while i < n do
      val free = heap(0)
      val done = free + delay.nanosFor(seed, i)
      if done > end then end = done
      heap(0) = done
      siftDown(heap)
      i += 1
    end.nanos

  private def siftDown(heap: Array[Long]): Unit =
    val size = heap.length
    val value = heap(0)
    var at = 0
    var continue = true
    while continue do
      val left = 2 * at + 1
      if left >= size then continue = false
      else
        val right = left + 1
        val child = if right < size && heap(right) < heap(left) then right else left
        if heap(child) < value then
          heap(at) = heap(child)
          at = child
        else continue = false
    heap(at) = value
