package weir.postgres.queue

import cats.effect.{Async, Resource}
import cats.effect.std.Queue
import cats.syntax.all.*
import fs2.Stream
import java.util.concurrent.atomic.{AtomicLong, AtomicReference}

/** A worker's [[WorkerEvent]]s, fanned out to its subscribers: each has a bounded buffer of its
  * own, and an event that finds a subscriber's buffer full is dropped for that subscriber alone and
  * counted, the count delivered as one [[WorkerEvent.Lagged]] before its next event. Publishing
  * never waits: a slow subscriber loses events, it never slows the worker.
  *
  * The subscribers are an atomic list rather than a `Ref`: [[publish]] runs two or three times per
  * job, on the worker's hot path, and with nobody subscribed it is one volatile read.
  */
private[queue] final class Events[F[_]](using F: Async[F]):
  import Events.{Buffered, Inline, Subscriber}

  private val subscribers = new AtomicReference[List[Subscriber[F]]](Nil)

  /** Offers `event` (built only when someone listens) to every subscriber; never waits. */
  def publish(event: => WorkerEvent): F[Unit] = F.defer {
    val now = subscribers.get
    if now.isEmpty then F.unit
    else
      val e = event
      now.traverse_(s => if s.wants(e) then s.offer(e) else F.unit)
  }

  /** A subscription to the events `only` accepts, with room for `buffer` of them, from now until
    * the resource is released.
    */
  def subscribe(
      buffer: Int,
      only: WorkerEvent => Boolean
  ): Resource[F, Stream[F, WorkerEvent]] =
    val make = Queue.bounded[F, WorkerEvent](math.max(1, buffer)).map(q => Buffered(q, only))
    registered(make).map(_.stream)

  /** `f` called on the events `only` accepts, in the publishing fiber, from now until the resource
    * is released (see [[Worker.listen]]).
    */
  def listen(only: WorkerEvent => Boolean, f: WorkerEvent => Unit): Resource[F, Unit] =
    registered(F.delay(Inline(only, f))).void

  private def registered[S <: Subscriber[F]](make: F[S]): Resource[F, S] =
    Resource.make(make.flatTap(s => F.delay(subscribers.updateAndGet(s :: _)).void))(s =>
      F.delay(subscribers.updateAndGet(_.filterNot(_ eq s))).void
    )

private[queue] object Events:

  /** The most events a subscriber's stream takes from its buffer at once. */
  val chunk: Int = 256

  /** One subscriber: what it wants, and how an event reaches it (never waiting). */
  private sealed trait Subscriber[F[_]]:
    def wants: WorkerEvent => Boolean
    def offer(e: WorkerEvent): F[Unit]

  /** A subscriber with a bounded buffer, read as a stream (see [[Events.subscribe]]). */
  private final class Buffered[F[_]](
      queue: Queue[F, WorkerEvent],
      val wants: WorkerEvent => Boolean
  )(using F: Async[F])
      extends Subscriber[F]:
    private val dropped = new AtomicLong

    def offer(e: WorkerEvent): F[Unit] =
      queue
        .tryOffer(e)
        .flatMap(ok => if ok then F.unit else F.delay(dropped.incrementAndGet()).void)

    // Taken as many at a time as are buffered (up to a chunk of 256): a subscriber that keeps up
    // pays the stream's cost per chunk, not per event.
    def stream: Stream[F, WorkerEvent] =
      Stream.fromQueueUnterminated(queue, Events.chunk).chunks.flatMap { events =>
        val lost = dropped.getAndSet(0)
        if lost > 0 then Stream.emit(WorkerEvent.Lagged(lost)) ++ Stream.chunk(events)
        else Stream.chunk(events)
      }

  /** A listener called in the publishing fiber (see [[Events.listen]]); what it throws is dropped.
    */
  private final class Inline[F[_]](val wants: WorkerEvent => Boolean, f: WorkerEvent => Unit)(using
      F: Async[F]
  ) extends Subscriber[F]:
    def offer(e: WorkerEvent): F[Unit] = F.delay {
      try f(e)
      catch case scala.util.control.NonFatal(_) => ()
    }
