package weir.http

import cats.effect.kernel.Async
import cats.effect.std.Semaphore
import cats.syntax.all.*
import java.util.concurrent.atomic.AtomicInteger

/** At most [[limit]] new TLS connections of one client in their TCP connect and handshake at once;
  * the others wait their turn (in order) before they even connect.
  *
  * Why: at c = 1 000 every request of a cold client opens a connection at once, and all 1 000
  * handshakes then share the event loops' threads; each advances a little in turn, so none ends for
  * seconds, while the connect timeout of each is running (docs/adr/0012-tls.md: 8 answers in the
  * first 5.8 s on the JDK's engine). Bounded, handshakes end in the order they started and the
  * first requests are answered at once; a connection waiting for a permit has not started its
  * connect timeout yet.
  *
  * Cancelling a caller that waits for a permit, or one in its handshake, frees its place. [[peak]]
  * and [[inFlight]] are read by tests and never reset.
  */
private[http] final class HandshakeBound[F[_]] private (permits: Semaphore[F], val limit: Int)(using
    F: Async[F]
):
  private val now = new AtomicInteger
  private val most = new AtomicInteger

  /** Runs `connect` (a TCP connect and TLS handshake) once a place is free; frees it when `connect`
    * ends, succeeded, failed or cancelled.
    */
  def apply[A](connect: F[A]): F[A] =
    permits.permit.surround(
      F.delay(enter()) *> F.guarantee(connect, F.delay(now.decrementAndGet()).void)
    )

  /** Connects and handshakes in flight now. */
  def inFlight: Int = now.get

  /** The most that were ever in flight at once. */
  def peak: Int = most.get

  private def enter(): Unit =
    val n = now.incrementAndGet()
    var seen = most.get
    while n > seen && !most.compareAndSet(seen, n) do seen = most.get

private[http] object HandshakeBound:

  /** The default limit: 32 per core (2 x cores x 16; 64 on 2 cores).
    *
    * The cost it rests on: in docs/adr/0012-tls.md's `--no-keepalive` runs on BoringSSL (a
    * handshake per request), the client spent about 4.5 ms of CPU per request, handshake, request
    * and JVM start included. 32 handshakes in flight per event loop is then at most about 150 ms of
    * work queued on a loop: a new connection waits at most that long behind the others, far inside
    * any connect timeout (default: the request timeout, 30 s), and the loops keep turns for the
    * requests of the connections already up. And 32 per loop still keeps the cores busy against a
    * distant server: while a handshake waits a round trip (two with TCP's connect), the others' 150
    * ms of work fill it for round trips up to about that; beyond, the storm ends later, never
    * stalls (1 000 connections at 100 ms RTT: 16 rounds of 64). Chosen by this reasoning; measured
    * later against Go's server (c = 1 000, 0..200 ms, two rounds each), 64, 256 and 1 024 showed no
    * order (docs/adr/0012-tls.md, "The warm-up over TLS").
    */
  def default: Int = 32 * Runtime.getRuntime.availableProcessors

  /** A bound of `limit` places (at least 1). */
  def apply[F[_]](limit: Int)(using F: Async[F]): F[HandshakeBound[F]] =
    val n = math.max(1, limit)
    Semaphore[F](n.toLong).map(new HandshakeBound[F](_, n))
