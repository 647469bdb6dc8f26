package weir.postgres.queue

import cats.MonadThrow
import cats.effect.Temporal
import cats.effect.syntax.all.*
import scala.concurrent.duration.FiniteDuration

/** A worker's handlers, one per [[JobKind]]: [[handler]] is the `Job => F[Unit]` that
  * [[Worker.run]] takes, running each job with the handler of its kind.
  *
  *   - A job whose payload does not decode fails its attempt with [[JobKind.Undecodable]] (its
  *     message names the kind and the codec's reason): retried, then discarded, as any failure.
  *   - A job of a kind no handler knows is discarded at once, not retried ([[JobControl.Discard]],
  *     "no handler for kind 'X'"): kept as `discarded` with that message, re-drivable once a worker
  *     knows the kind ([[QueueAdmin.retryDiscarded]]).
  *
  *   - A kind given a timeout ([[JobHandlers.Entry.withTimeout]]) has its handler cancelled once it
  *     has run that long, and the attempt fails with [[JobTimedOut]] (retried after the backoff); a
  *     job with a timeout of its own ([[NewJob.withTimeout]]) is bounded by that one instead, which
  *     the worker enforces on every handler.
  *
  * A value: build it once, share it between any number of workers and fibers. A handler's own
  * errors (and cancellation) pass through unchanged.
  */
final class JobHandlers[F[_]] private (handlers: Map[String, JobHandlers.Entry[F]]):

  /** The names of the kinds handled. */
  def kinds: Set[String] = handlers.keySet

  /** These handlers and `entry`'s (replacing a handler of the same kind). */
  def and(entry: JobHandlers.Entry[F]): JobHandlers[F] =
    new JobHandlers(handlers + (entry.kind.name -> entry))

  /** Runs a job with the handler of its kind (see [[JobHandlers]]). */
  def handler(using F: Temporal[F]): Job => F[Unit] = job =>
    handlers.get(job.kind) match
      case Some(entry) =>
        entry.timeout.filter(_ => job.timeout.isEmpty) match
          case None => entry.run(job)
          case Some(after) =>
            entry
              .run(job)
              .timeoutTo(
                after,
                F.flatMap(F.unit)(_ => F.raiseError(JobTimedOut(job.id, job.attempt, after)))
              )
      case None => F.raiseError(JobControl.Discard(s"no handler for kind '${job.kind}'"))

object JobHandlers:

  /** A kind and its handler ([[JobKind.handledBy]]). */
  sealed trait Entry[F[_]]:
    type A
    def kind: JobKind[A]
    def handle: A => F[Unit]

    /** How long a job of this kind may run (`None`: as long as the worker allows); a job's own
      * timeout ([[NewJob.withTimeout]]) takes its place.
      */
    def timeout: Option[FiniteDuration] = None

    /** This kind's handler, each job cut off after `after` (see [[JobHandlers]]). */
    def withTimeout(after: weir.PositiveDuration): Entry[F] =
      Entry.timed(kind, handle, Some(after))

    /** `job`'s payload decoded and handled; an undecodable payload raised. */
    private[queue] def run(job: Job)(using F: MonadThrow[F]): F[Unit] =
      kind.decode(job) match
        case Right(a)    => handle(a)
        case Left(error) => F.raiseError(error)

  object Entry:
    /** `kind` handled by `handler`. */
    def apply[F[_], X](kind: JobKind[X], handler: X => F[Unit]): Entry[F] =
      timed(kind, handler, None)

    private[queue] def timed[F[_], X](
        kind: JobKind[X],
        handler: X => F[Unit],
        after: Option[FiniteDuration]
    ): Entry[F] =
      val (k, h) = (kind, handler)
      new Entry[F]:
        type A = X
        val kind: JobKind[X] = k
        val handle: X => F[Unit] = h
        override val timeout: Option[FiniteDuration] = after

  /** Handlers for the kinds of `entries` (a later entry of the same kind replaces an earlier one).
    */
  def of[F[_]](entries: Entry[F]*): JobHandlers[F] =
    entries.foldLeft(new JobHandlers[F](Map.empty))(_.and(_))
