package weir.postgres.queue

import cats.MonadThrow

/** A worker's handlers, one per [[JobKind]]: [[handler]] is the `Job => F[Unit]` that
  * [[Worker.run]] takes, running each job with the handler of its kind.
  *
  *   - A job whose payload does not decode fails its attempt with [[JobKind.Undecodable]] (its
  *     message names the kind and the codec's reason): retried, then discarded, as any failure.
  *   - A job of a kind no handler knows is discarded at once, not retried ([[JobControl.Discard]],
  *     "no handler for kind 'X'"): kept as `discarded` with that message, re-drivable once a worker
  *     knows the kind ([[QueueAdmin.retryDiscarded]]).
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
  def handler(using F: MonadThrow[F]): Job => F[Unit] = job =>
    handlers.get(job.kind) match
      case Some(entry) => entry.run(job)
      case None        => F.raiseError(JobControl.Discard(s"no handler for kind '${job.kind}'"))

object JobHandlers:

  /** A kind and its handler ([[JobKind.handledBy]]). */
  sealed trait Entry[F[_]]:
    type A
    def kind: JobKind[A]
    def handle: A => F[Unit]

    /** `job`'s payload decoded and handled; an undecodable payload raised. */
    private[queue] def run(job: Job)(using F: MonadThrow[F]): F[Unit] =
      kind.decode(job) match
        case Right(a)    => handle(a)
        case Left(error) => F.raiseError(error)

  object Entry:
    /** `kind` handled by `handler`. */
    def apply[F[_], X](kind: JobKind[X], handler: X => F[Unit]): Entry[F] =
      val (k, h) = (kind, handler)
      new Entry[F]:
        type A = X
        val kind: JobKind[X] = k
        val handle: X => F[Unit] = h

  /** Handlers for the kinds of `entries` (a later entry of the same kind replaces an earlier one).
    */
  def of[F[_]](entries: Entry[F]*): JobHandlers[F] =
    entries.foldLeft(new JobHandlers[F](Map.empty))(_.and(_))
