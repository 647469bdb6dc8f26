package weir.postgres.queue

import cats.effect.{Clock, Sync}
import cats.syntax.all.*
import scala.concurrent.duration.*
import weir.postgres.PgSession

/** Testing code that enqueues jobs and handles them, without a worker's concurrency, timing or
  * connections:
  *
  *   - [[runInline]] runs a handler on jobs with no database at all, and says what became of each;
  *   - [[enqueued]] and [[enqueuedOf]] read what a test's code put in a test database's queue;
  *   - [[drain]] runs a handler on a test database's queue inline, one job at a time in the calling
  *     fiber, each outcome written by the statements a [[Worker]] writes with (completion, failure,
  *     discard, snooze: fenced the same way), until no job of the queue is due.
  *
  * '''Concurrency.''' Everything runs in the calling fiber, one job at a time; a session must not
  * be used by anything else during a call. '''Errors.''' A handler's error is an outcome
  * ([[QueueTestKit.Outcome.Failed]]), never raised; driver errors are raised.
  */
object QueueTestKit:

  /** What became of one attempt of a job. */
  enum Outcome:
    /** The handler returned: the job is completed. */
    case Completed

    /** The handler raised `error`: the attempt failed (retried while attempts are left). */
    case Failed(error: Throwable)

    /** The handler raised [[JobControl.Discard]]: the job is discarded with `reason`. */
    case Discarded(reason: String)

    /** The handler raised [[JobControl.Snooze]]: the job runs again after `after`. */
    case Snoozed(after: FiniteDuration)

  object Outcome:
    /** The outcome of a handler's result. */
    def of(result: Either[Throwable, Unit]): Outcome = result match
      case Right(())                        => Completed
      case Left(JobControl.Discard(reason)) => Discarded(reason)
      case Left(JobControl.Snooze(after))   => Snoozed(after)
      case Left(e)                          => Failed(e)

  /** Runs `handler` on each of `jobs` in order, with no database: each as a first attempt of a job
    * with an id from 1 up, due now; what became of each. Cancelling the call cancels the handler
    * running.
    */
  def runInline[F[_]: Sync](handler: Job => F[Unit], jobs: Seq[NewJob]): F[Vector[(Job, Outcome)]] =
    Clock[F].realTimeInstant.flatMap { now =>
      jobs.toVector.zipWithIndex.traverse { (j, i) =>
        val job = Job(
          id = i + 1L,
          queue = j.queue,
          payload = j.payload,
          priority = j.priority,
          runAt = j.runAt.getOrElse(now),
          attempt = 1,
          maxAttempts = j.maxAttempts,
          kind = j.kind
        )
        handler(job).attempt.map(r => job -> Outcome.of(r))
      }
    }

  /** The jobs of `queue` in `session`'s database waiting to run (available, due or not), in the
    * order they would be claimed; only those of `kind` when it is given.
    */
  def enqueued[F[_]](
      session: PgSession[F],
      queue: String = NewJob.defaultQueue,
      kind: Option[String] = None,
      schema: QueueSchemaName = QueueSchemaName.default
  ): F[Vector[Job]] =
    session.withConnection(c => Claimer.waiting(c, queue, kind, schema))

  /** The payloads of the jobs of `kind` waiting in `queue`, decoded; raises [[JobKind.Undecodable]]
    * for a payload that does not decode.
    */
  def enqueuedOf[F[_], A](
      session: PgSession[F],
      kind: JobKind[A],
      queue: String = NewJob.defaultQueue,
      schema: QueueSchemaName = QueueSchemaName.default
  )(using F: Sync[F]): F[Vector[A]] =
    enqueued(session, queue, Some(kind.name), schema)
      .flatMap(_.traverse(j => F.fromEither(kind.decode(j))))

  /** The name a [[drain]] claims under (the `worker` column while a job runs). */
  val worker: String = "weir test kit"

  /** Runs `handler` on the jobs of `queue` in `session`'s database, inline (see [[QueueTestKit]]):
    * claims one due job, runs the handler, writes the outcome, again, until no job of the queue is
    * due; every attempt in order with what became of it. A failed attempt's job is due again at
    * once (no backoff), so a job that always fails runs its `maxAttempts` times and ends discarded;
    * a snoozed job is not due before its snooze ends, so it is not run again here. At most `limit`
    * attempts are run (a guard against a handler that snoozes for zero).
    */
  def drain[F[_]](
      session: PgSession[F],
      handler: Job => F[Unit],
      queue: String = NewJob.defaultQueue,
      limit: Int = 10_000,
      schema: QueueSchemaName = QueueSchemaName.default
  )(using F: Sync[F]): F[Vector[(Job, Outcome)]] =
    def claimOne: F[Option[Job]] =
      session.withConnection(c =>
        Claimer.claim(c, queue, 1, 1.hour, worker, None, schema).headOption
      )
    def write(job: Job, outcome: Outcome): F[Unit] = session.withConnection { c =>
      outcome match
        case Outcome.Completed => Fenced.complete(c, Seq(job.claim), worker, schema)
        case Outcome.Failed(e) =>
          val label = weir.engine.FailureClass.of(e).label
          val text = Option(e.getMessage).fold(label)(m => s"$label: $m")
          Fenced.fail(c, Seq(Fenced.Failure(job.claim, text, Duration.Zero)), worker, schema)
        case Outcome.Discarded(reason) =>
          Fenced.discard(c, Seq(Fenced.Discarded(job.claim, reason)), worker, schema)
        case Outcome.Snoozed(after) =>
          Fenced.snooze(c, Seq(Fenced.Snoozed(job.claim, after)), worker, schema)
      ()
    }
    def loop(done: Vector[(Job, Outcome)]): F[Vector[(Job, Outcome)]] =
      if done.size >= limit then F.pure(done)
      else
        claimOne.flatMap {
          case None => F.pure(done)
          case Some(job) =>
            handler(job).attempt.map(Outcome.of).flatMap { outcome =>
              write(job, outcome) >> loop(done :+ (job -> outcome))
            }
        }
    loop(Vector.empty)
