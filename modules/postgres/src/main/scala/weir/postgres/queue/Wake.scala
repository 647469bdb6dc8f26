package weir.postgres.queue

import cats.effect.{Async, Resource}
import cats.effect.std.{Queue, Random}
import cats.effect.syntax.all.*
import cats.syntax.all.*
import org.postgresql.PGConnection
import scala.concurrent.duration.*
import weir.engine.RetryPolicy
import weir.postgres.{PgSession, PgTarget}

/** Wake-ups for an idle worker: a connection of its own `LISTEN`s on [[Enqueue.channel]], and
  * [[next]] returns at the first notification for the worker's queue or after the poll interval,
  * whichever comes first, so a lost notification (or a listener that is reconnecting) delays a job
  * by at most one poll interval.
  *
  * Notifications are coalesced: any number that arrive while the worker is busy leave one wake-up
  * pending. A lost listening connection is reopened after a backoff (and a wake-up is left pending,
  * since notifications sent meanwhile were lost). Releasing the resource stops the listener.
  */
private[weir] final class Wake[F[_]] private (pending: Queue[F, Unit], poll: FiniteDuration)(using
    F: Async[F]
):

  /** Waits for a notification or the poll interval; cancelling it just stops the wait. */
  def next: F[Unit] = F.race(pending.take, F.sleep(poll)).void

  /** Leaves a wake-up pending (as a notification would). */
  def poke: F[Unit] = pending.offer(()).void

private[weir] object Wake:

  /** How long one wait for notifications blocks the listening connection's thread: the bound on how
    * long releasing the listener takes.
    */
  private val listenSlice = 250.millis

  /** Listens for `queue`'s notifications on a connection to `target` (see [[Wake]]); `onLost`, if
    * given, runs each time the listening connection is lost (or cannot be opened), before the
    * backoff.
    */
  def resource[F[_]: Async](
      target: PgTarget,
      queue: String,
      poll: FiniteDuration,
      reconnect: RetryPolicy,
      onLost: Option[F[Unit]] = None
  ): Resource[F, Wake[F]] =
    Resource.eval((Queue.dropping[F, Unit](1), Random.scalaUtilRandom[F]).tupled).flatMap {
      (pending, random) =>
        val listening: F[Unit] =
          PgSession.open[F](target, Worker.applicationName("listen")).use { s =>
            s.update(s"LISTEN ${Enqueue.channel}") >> pending.offer(()).void >> s
              .withConnection { c =>
                val got =
                  c.unwrap(classOf[PGConnection]).getNotifications(listenSlice.toMillis.toInt)
                got != null && got.exists(_.getParameter == queue)
              }
              .flatMap(woken => if woken then pending.offer(()).void else Async[F].unit)
              .foreverM
          }
        def loop(failures: Int): F[Unit] =
          listening.handleErrorWith { _ =>
            onLost.traverse_(_.attempt) >> pending.offer(()) >> Backoff
              .draw(reconnect, random, failures + 1)
              .flatMap(
                Async[F].sleep
              ) >> loop(math.min(failures + 1, 30))
          }
        loop(0).background.as(new Wake(pending, poll))
    }
