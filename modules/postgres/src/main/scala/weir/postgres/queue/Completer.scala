package weir.postgres.queue

import cats.effect.{Async, Resource}
import cats.effect.std.Queue
import cats.effect.syntax.all.*
import cats.syntax.all.*

/** Writes a worker's completions and failures back in batches of up to `batch` per statement (River
  * writes up to 5 000), group-commit style: the writer takes whatever has queued up while its
  * previous statement ran, so a batch grows with the load and no completion waits for a timer. Each
  * statement is fenced by the claims' attempts ([[Fenced]]).
  *
  * '''Concurrency.''' [[complete]], [[fail]], [[discard]] and [[snooze]] may be called from any
  * number of fibers; they return once the write is queued (waiting only while `2 × batch` writes
  * are queued already), not once it is written. '''Errors.''' A write is repeated on a new
  * connection while the connection is lost ([[QueueDb.use]]); any other error of a statement is
  * handed to `retrying`, which tries the write again after a backoff (every write is safe to
  * repeat, see [[Fenced]]) and reports it. Should the writer still die (an error `retrying` gives
  * up on, a failing `written`), [[failure]] raises it at once, so that the worker ends its run
  * rather than stall with its queue full, and [[drain]] raises it too. '''Stopping.''' [[drain]]
  * writes whatever is queued and waits for it.
  */
private[weir] final class Completer[F[_]] private (
    queue: Queue[F, Option[Completer.Ack]],
    done: F[Unit]
)(using F: Async[F]):

  /** Never returns while the writer lives; raises its error if it dies (nothing when it ends after
    * a [[drain]]).
    */
  def failure: F[Unit] = done >> F.never

  /** Queues the completion of `claim`. */
  def complete(claim: Job.Claim): F[Unit] = queue.offer(Some(Completer.Ack.Done(claim)))

  /** Queues a failed attempt. */
  def fail(failure: Fenced.Failure): F[Unit] = queue.offer(Some(Completer.Ack.Failed(failure)))

  /** Queues a discard (the job ended for good by its handler). */
  def discard(discarded: Fenced.Discarded): F[Unit] =
    queue.offer(Some(Completer.Ack.Discarded(discarded)))

  /** Queues a snooze (the job put off by its handler, its attempt given back). */
  def snooze(snoozed: Fenced.Snoozed): F[Unit] =
    queue.offer(Some(Completer.Ack.Snoozed(snoozed)))

  /** Writes what is queued (no call may come after it) and waits until it is written. */
  def drain: F[Unit] = F.race(queue.offer(None), done) >> done

private[weir] object Completer:

  private enum Ack:
    case Done(claim: Job.Claim)
    case Failed(failure: Fenced.Failure)
    case Discarded(discarded: Fenced.Discarded)
    case Snoozed(snoozed: Fenced.Snoozed)

  /** A completer writing through `db` as `worker`, each batch's statements tried again by
    * `retrying` when they fail; after each batch, its claims (written or refused; snoozes excepted)
    * and what the statement did are passed to `written`, then the batch is published to `events`
    * ([[WorkerEvent.Acknowledged]], timed from its first try to its answer). Releasing the resource
    * stops the writer without draining (see [[Completer.drain]]).
    */
  def resource[F[_]: Async](
      db: QueueDb[F],
      worker: String,
      batch: Int,
      written: (Seq[Job.Claim], Fenced.Written) => F[Unit],
      retrying: F[Fenced.Written] => F[Fenced.Written],
      events: Events[F],
      schema: QueueSchemaName
  ): Resource[F, Completer[F]] =
    val cancelled =
      Async[F].raiseError[Unit](new IllegalStateException("the completion writer was cancelled"))
    Resource.eval(Queue.bounded[F, Option[Ack]](2 * batch)).flatMap { queue =>
      def write(acks: List[Ack]): F[Unit] =
        val done = acks.collect { case Ack.Done(c) => c }
        val failed = acks.collect { case Ack.Failed(f) => f }
        val discarded = acks.collect { case Ack.Discarded(d) => d }
        val snoozed = acks.collect { case Ack.Snoozed(s) => s }
        // Not the snoozed claims: their worker forgot them when it queued the snooze (a claim of
        // the same job under the same attempt may be held again by the time this is written).
        val claims = done ++ failed.map(_.claim) ++ discarded.map(_.claim)
        val statement = db.use(c =>
          Fenced.complete(c, done, worker, schema) + Fenced.fail(c, failed, worker, schema) +
            Fenced.discard(c, discarded, worker, schema) + Fenced.snooze(c, snoozed, worker, schema)
        )
        Async[F].timed(retrying(statement)).flatMap { (took, w) =>
          written(claims, w) >> events.publish(WorkerEvent.Acknowledged(acks.size, w, took))
        }
      // The first write waited for, then whatever else is there at once; None (drain) ends it.
      val writer: F[Unit] = queue.take
        .flatMap { first =>
          queue.tryTakeN(Some(batch - 1)).map(first :: _).flatMap { taken =>
            val acks = taken.takeWhile(_.isDefined).flatten
            write(acks).whenA(acks.nonEmpty).as(taken.exists(_.isEmpty))
          }
        }
        .iterateUntil(identity)
        .void
      writer.background.map(outcome => new Completer(queue, outcome.flatMap(_.embed(cancelled))))
    }
