package weir.postgres.queue

import cats.effect.{Async, Resource}
import cats.effect.std.{Queue, Random}
import cats.effect.syntax.all.*
import cats.syntax.all.*
import java.util.concurrent.atomic.AtomicReference
import org.postgresql.PGConnection
import scala.concurrent.duration.*
import weir.engine.RetryPolicy
import weir.postgres.PgSession

/** Wake-ups for an idle worker: one connection of its own `LISTEN`s on [[Enqueue.channel]],
  * whatever the number of queues it serves, and [[next]] returns at the first notification for one
  * of them or after the poll interval, whichever comes first, so a lost notification (or a listener
  * that is reconnecting) delays a job by at most one poll interval. [[notified]] says which queues
  * were notified, for a worker busy on another queue.
  *
  * Notifications are coalesced: any number that arrive while the worker is busy leave one wake-up
  * pending. A lost listening connection is reopened after a backoff (and a wake-up is left pending
  * for every queue, since notifications sent meanwhile were lost). Releasing the resource stops the
  * listener (and gives its connection back, when it came from the application's pool).
  */
private[weir] final class Wake[F[_]] private (
    pending: Queue[F, Unit],
    poll: FiniteDuration,
    heard: AtomicReference[Set[String]]
)(using F: Async[F]):

  /** Waits for a notification or the poll interval; cancelling it just stops the wait. */
  def next: F[Unit] = F.race(pending.take, F.sleep(poll)).void

  /** Leaves a wake-up pending (as a notification would). */
  def poke: F[Unit] = pending.offer(()).void

  /** The queues notified since the last call (empty mostly: one volatile read then). */
  def notified: F[Set[String]] =
    F.delay(if heard.get.isEmpty then Set.empty else heard.getAndSet(Set.empty))

private[weir] object Wake:

  /** How long one wait for notifications blocks the listening connection's thread: the bound on how
    * long releasing the listener takes.
    */
  private val listenSlice = 250.millis

  /** Listens for the notifications of `queues` (on `schema`'s channel) on a connection `open`ed for
    * it (see [[Wake]]); `onLost`, if given, runs each time the listening connection is lost (or
    * cannot be opened), before the backoff.
    */
  def resource[F[_]: Async](
      open: Resource[F, PgSession[F]],
      queues: Set[String],
      poll: FiniteDuration,
      reconnect: RetryPolicy,
      onLost: Option[F[Unit]] = None,
      schema: QueueSchemaName = QueueSchemaName.default
  ): Resource[F, Wake[F]] =
    val heard = new AtomicReference(Set.empty[String])
    val hear = (names: Set[String]) => Async[F].delay(heard.updateAndGet(_ ++ names)).void
    Resource.eval((Queue.dropping[F, Unit](1), Random.scalaUtilRandom[F]).tupled).flatMap {
      (pending, random) =>
        val listening: F[Unit] =
          open.use { s =>
            s.update(s"LISTEN ${schema.channel}") >> pending.offer(()).void >> s
              .withConnection { c =>
                val got =
                  c.unwrap(classOf[PGConnection]).getNotifications(listenSlice.toMillis.toInt)
                if got == null then Set.empty[String]
                else got.iterator.map(_.getParameter).filter(queues.contains).toSet
              }
              .flatMap(woken =>
                if woken.nonEmpty then hear(woken) >> pending.offer(()).void else Async[F].unit
              )
              .foreverM
          }
        def loop(failures: Int): F[Unit] =
          listening.handleErrorWith { _ =>
            onLost.traverse_(_.attempt) >> hear(queues) >> pending.offer(()) >> Backoff
              .draw(reconnect, random, failures + 1)
              .flatMap(
                Async[F].sleep
              ) >> loop(math.min(failures + 1, 30))
          }
        loop(0).background.as(new Wake(pending, poll, heard))
    }
