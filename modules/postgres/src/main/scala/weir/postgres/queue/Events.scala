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
  import Events.Subscriber

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
    val make = Queue.bounded[F, WorkerEvent](math.max(1, buffer)).map(q => Subscriber(q, only))
    Resource
      .make(make.flatTap(s => F.delay(subscribers.updateAndGet(s :: _)).void))(s =>
        F.delay(subscribers.updateAndGet(_.filterNot(_ eq s))).void
      )
      .map(_.stream)

private[queue] object Events:

  private final class Subscriber[F[_]](
      queue: Queue[F, WorkerEvent],
      val wants: WorkerEvent => Boolean
  )(using F: Async[F]):
    private val dropped = new AtomicLong

    def offer(e: WorkerEvent): F[Unit] =
      queue
        .tryOffer(e)
        .flatMap(ok => if ok then F.unit else F.delay(dropped.incrementAndGet()).void)

    def stream: Stream[F, WorkerEvent] =
      Stream.repeatEval(queue.take).flatMap { e =>
        val lost = dropped.getAndSet(0)
        if lost > 0 then Stream(WorkerEvent.Lagged(lost), e) else Stream.emit(e)
      }
