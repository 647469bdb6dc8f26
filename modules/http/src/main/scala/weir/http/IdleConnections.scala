package weir.http

import io.netty.channel.EventLoop
import java.util.concurrent.ConcurrentLinkedDeque

/** The idle keep-alive connections to one host, port and scheme, kept per event loop.
  *
  * Why: a request issued on an event loop that reuses a connection of that same loop writes, reads
  * its response and resumes its fiber on one thread (see [[EventLoopRuntime]]); a connection of
  * another loop costs a cross-thread hand-off (a wake-up system call) each way. With one shared
  * queue, half the requests on two loops paid it.
  *
  * [[take]] looks at the caller's own loop first, newest connection first (it is the likeliest to
  * be alive and in cache), then at the other loops; a caller that is on no loop of the group starts
  * with the first. Thread-safe and lock-free: one concurrent deque per loop.
  */
private[http] final class IdleConnections(
    val host: String,
    val port: Int,
    val secure: Boolean,
    loops: Array[EventLoop]
):
  private val stacks = Array.fill(loops.length)(new ConcurrentLinkedDeque[ClientConnection]())

  /** An idle, usable connection, or null when there is none. Unusable ones found are dropped. */
  def take(): ClientConnection | Null =
    val home = math.max(0, Transport.currentLoop(loops))
    var found: ClientConnection | Null = null
    var i = 0
    while found == null && i < stacks.length do
      val stack = stacks((home + i) % stacks.length)
      var conn = stack.pollFirst()
      while conn != null && !conn.usable do conn = stack.pollFirst()
      found = conn
      i += 1
    found

  /** Keeps `conn` for a later [[take]] on its own loop. */
  def offer(conn: ClientConnection): Unit =
    val loop = conn.channel.eventLoop
    var i = 0
    while i < loops.length && (loops(i) ne loop) do i += 1
    stacks(if i < loops.length then i else 0).offerFirst(conn): Unit

  /** How many connections are idle on each loop, in the group's order. */
  def countsByLoop: Seq[Int] = stacks.toSeq.map(_.size)

  /** Every idle connection, for closing at the end. */
  def foreach(f: ClientConnection => Unit): Unit = stacks.foreach(_.forEach(c => f(c)))
