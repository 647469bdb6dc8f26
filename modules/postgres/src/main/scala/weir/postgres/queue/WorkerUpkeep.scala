package weir.postgres.queue

import cats.effect.{Async, Ref}
import cats.effect.std.Random
import cats.syntax.all.*
import scala.concurrent.duration.*

/** What a [[Worker]] does beside claiming and handling jobs: the heartbeat that renews the leases
  * of the jobs it holds (and interrupts the handlers of those it learns are gone), the lease reaper
  * and the retention sweep ([[Maintenance]]), all on its `upkeep` connection, one statement at a
  * time; and, after the run, the completions drained and what is still held released, on its `acks`
  * connection, and the worker's row in `weir.workers` ([[presence]]). Every statement here is tried
  * again with the backoff of [[QueueSettings.reconnect]] while it fails ([[persisting]]), each
  * failure published as a [[WorkerEvent.UpkeepError]].
  *
  * '''Concurrency.''' [[heartbeat]] and [[reaper]] run beside each other and beside the run, each
  * in a fiber of its own; their statements take turns on the one upkeep connection ([[QueueDb]]
  * serialises them). '''Cancellation.''' Cancelling them cancels the statement in flight (it rolls
  * back whole: nothing here is lost by it). '''Errors.''' See [[heartbeat]]: only the loss of the
  * leases ends it; the reaper never ends but by cancellation.
  */
private[queue] final class WorkerUpkeep[F[_]](
    id: String,
    settings: QueueSettings,
    held: Held[F],
    upkeep: QueueDb[F],
    acks: QueueDb[F],
    counts: Ref[F, Worker.Counts],
    random: Random[F],
    hub: Events[F]
)(using F: Async[F]):

  /** `fa` tried again after a backoff while it fails, each failure published as `part`'s, then
    * given to `also` (which may end the retries by raising).
    */
  def persisting[A](part: UpkeepPart, also: Throwable => F[Unit] = _ => F.unit)(
      fa: F[A]
  ): F[A] =
    Backoff.persisting(
      settings.reconnect,
      random,
      (k, e, _) => hub.publish(WorkerEvent.UpkeepError(part, e, k)) >> also(e)
    )(fa)

  /** Renews what is held every [[QueueSettings.heartbeat]] until cancelled, on the upkeep
    * connection, between the reaper's statements (a sweep is a statement per batch), so that
    * completions never wait behind a renewal on the acks connection. Each beat is tried again while
    * it fails. An error the server answers with, once no renewal has gone through for a whole lease
    * (counted from the start of the last one that did), ends it with [[QueueError.LeasesLost]]: the
    * leases may be gone and the jobs claimed again elsewhere. A lost connection is only waited out
    * (QueueDb reopens it: no one else can reach the server meanwhile either), as is a statement
    * waiting on a lock; once a renewal goes through, the jobs whose leases were taken meanwhile are
    * interrupted.
    */
  def heartbeat: F[Unit] =
    def beat(renewed: FiniteDuration): F[Unit] =
      F.sleep(settings.heartbeat) >> F.monotonic.flatMap { now =>
        val current = held.current
        val gone = (e: Throwable) =>
          F.monotonic.flatMap { t =>
            F.raiseError[Unit](
              QueueError.LeasesLost(id, settings.lease.toCoarsest.toString, QueueError.oneLine(e))
            ).whenA(t - renewed >= settings.lease)
          }
        if current.isEmpty then beat(now)
        else
          persisting(UpkeepPart.Heartbeat, gone)(
            upkeep.use(c => Fenced.renew(c, current, settings.lease, settings.schema))
          ).flatMap(interrupt) >> beat(now)
      }
    F.monotonic.flatMap(beat)

  /** The worker's row in `weir.workers` ([[Presence]]) written at once, then every
    * [[QueueSettings.heartbeat]] until cancelled, on the upkeep connection: its queues, the jobs it
    * holds, its totals. Each write is tried again while it fails (published as the heartbeat's
    * errors); never ends but by cancellation. [[finish]] deletes the row.
    */
  def presence: F[Unit] =
    val beat = (F.delay(held.byQueue), counts.get).flatMapN { (holding, c) =>
      val b = Presence.Beat.of(settings.queues.toList, holding, c)
      persisting(UpkeepPart.Heartbeat)(upkeep.use(Presence.beat(_, id, b, settings.schema)))
    }
    (beat >> F.sleep(settings.heartbeat)).foreverM

  // Jobs no longer running under this worker's claim: forgotten, their handlers interrupted, each
  // published with why (one look at their rows, only when some are gone).
  private def interrupt(ids: Set[Long]): F[Unit] =
    F.delay(ids.toVector.flatMap(held.lose)).flatMap { gone =>
      if gone.isEmpty then F.unit
      else
        counts.update(_.lost(gone.size)) >>
          upkeep.use(c => Fenced.cancelled(c, gone.map(_._1.id), settings.schema)).attempt.flatMap {
            cancelled =>
              gone.traverse_ { (job, interrupt) =>
                val why =
                  if cancelled.exists(_.contains(job.id)) then CancelReason.CancelledInQueue
                  else CancelReason.LeaseLost
                interrupt.sequence_ >> hub.publish(WorkerEvent.Cancelled(job, why))
              }
          }
    }

  /** Ends expired leases (of every queue: the reaper is the whole table's) every
    * [[QueueSettings.reapEvery]], and runs the retention sweep every [[Worker.sweepEveryReaps]]
    * ticks; until cancelled.
    */
  def reaper: F[Unit] =
    def tick(n: Long): F[Unit] =
      F.sleep(settings.reapEvery) >>
        persisting(UpkeepPart.Reaper)(upkeep.use(c => Maintenance.reap(c, 1000, settings.schema)))
          .flatMap(r => counts.update(_.reaped(r))) >>
        (sweep >> prune).whenA(n % Worker.sweepEveryReaps == 0) >>
        tick(n + 1)
    tick(1)

  // The retention sweep, a batch per statement (the heartbeat renews between two), until a batch
  // comes back short.
  private def sweep: F[Unit] =
    val batch = persisting(UpkeepPart.Sweep)(
      upkeep.use(c =>
        Maintenance.sweepBatch(
          c,
          settings.retention,
          settings.retentionBatch,
          settings.archive,
          settings.schema
        )
      )
    ).flatTap(n => counts.update(_.swept(n.toLong)))
    batch.iterateWhile(_ >= settings.retentionBatch).void

  // Rows of workers unheard of for a day (killed, never stopped): deleted with the sweep.
  private def prune: F[Unit] =
    persisting(UpkeepPart.Sweep)(upkeep.use(Presence.prune(_, settings.schema))).void

  /** After the run: completions written, then everything still held given back at once (one
    * statement, not repeated: a lost connection there leaves the leases to end on their own); the
    * completer's error, if it died, raised after that.
    */
  def finish(completer: Completer[F]): F[Unit] =
    completer.drain.attempt.flatMap { drained =>
      F.delay(held.takeAll).flatMap { rest =>
        acks
          .once(c => Fenced.release(c, rest, id, settings.schema))
          .flatMap(n => counts.update(_.released(n)))
          .attempt
          .void >> acks.once(Presence.gone(_, id, settings.schema)).attempt.void
      } >> drained.liftTo[F]
    }
