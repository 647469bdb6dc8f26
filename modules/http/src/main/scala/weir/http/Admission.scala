package weir.http

/** The delay server's capacity ([[ServerConfig.withCapacity]]): at most `capacity` requests in
  * service at once, the others waiting in arrival order.
  *
  * Called from every event loop; one monitor guards the count and the queue (a request takes it
  * twice, a few hundred nanoseconds, far below a request's cost). A request's service is started
  * with `start` (which schedules its delay on its own connection's loop) once it has a place, and
  * gives the place back with [[leave]] when its delay is over.
  */
private[http] final class Admission(capacity: Int):
  private var serving = 0
  private var peak = 0
  private val waiting = new java.util.ArrayDeque[Runnable]()

  /** The most requests in service at once so far. */
  def peakServing: Int = synchronized(peak)

  /** Starts `start` now if there is a place, else when one frees up. */
  def enter(start: Runnable): Unit =
    val now = synchronized {
      if serving < capacity then
        serving += 1
        peak = math.max(peak, serving)
        true
      else
        waiting.addLast(start)
        false
    }
    if now then start.run()

  /** A request's service is over: its place goes to the longest waiting one, if any. */
  def leave(): Unit =
    val next = synchronized {
      val n = waiting.pollFirst()
      if n == null then serving -= 1
      n
    }
    if next != null then next.run()
