package weir.postgres.queue

import cats.effect.{Async, Fiber, Outcome}
import cats.effect.syntax.all.*
import cats.syntax.all.*
import java.util.concurrent.CancellationException
import weir.engine.Classified

/** A job's handler as the worker runs it: in a fiber of its own, recorded in [[Held]] with the way
  * to cancel it, so that the heartbeat can interrupt it when it learns that the job is no longer
  * held (cancelled in the queue, or its lease lost: see [[WorkerEvent.Cancelled]]).
  *
  * A job with a timeout of its own ([[Job.timeout]], [[NewJob.withTimeout]]) has its handler
  * cancelled once it has run that long (its finalizers waited for), and the attempt fails with
  * [[JobTimedOut]]; a handler that completes as the timeout ends keeps its outcome.
  *
  * '''Cancellation.''' Cancelling the call (the engine's per-attempt timeout, a stop's grace period
  * running out) cancels the handler's fiber and waits for its finalizers. '''Errors.''' The
  * handler's own error is raised as is; a handler interrupted because its job is gone raises
  * [[Interruptible.Interrupted]], for which nothing is written back; a handler that cancels itself
  * fails its attempt with a `CancellationException`.
  */
private[queue] object Interruptible:

  /** `job`'s handler was stopped (or never started) because the worker no longer holds the job. */
  final class Interrupted(job: Job)
      extends RuntimeException(
        s"job ${job.id} (attempt ${job.attempt}) is no longer held by this worker"
      )
      with Classified:
    def failureClass: String = "cancelled"
    override def overload: Boolean = false

  // The handler's outcome, or after `job.timeout` its cancellation, read as a JobTimedOut unless the
  // handler had ended by then (cancelling an ended fiber changes nothing: its outcome stands).
  private def timed[F[_], B](job: Job, fiber: Fiber[F, Throwable, B])(using
      F: Async[F]
  ): F[Outcome[F, Throwable, B]] =
    job.timeout match
      case None => fiber.join
      case Some(after) =>
        F.race(fiber.join, F.sleep(after)).flatMap {
          case Left(outcome) => F.pure(outcome)
          case Right(_) =>
            fiber.cancel >> fiber.join.map {
              case Outcome.Canceled() => Outcome.errored(JobTimedOut(job.id, job.attempt, after))
              case ended              => ended
            }
        }

  /** Runs `handler` on `job` as [[Interruptible]] says, publishing [[WorkerEvent.Started]]. */
  def run[F[_], B](held: Held[F], events: Events[F], job: Job, handler: Job => F[B])(using
      F: Async[F]
  ): F[B] =
    // Built only when raised (an exception per job would cost its stack trace on every job).
    val gone: F[B] = F.defer(F.raiseError(new Interrupted(job)))
    F.uncancelable { poll =>
      F.delay(held.holds(job)).flatMap { holding =>
        if !holding then gone
        else
          F.start(F.defer(handler(job))).flatMap { fiber =>
            F.delay(held.started(job, fiber.cancel)).flatMap { registered =>
              if !registered then fiber.cancel >> gone
              else
                events.publish(WorkerEvent.Started(job)) >>
                  poll(timed(job, fiber)).onCancel(fiber.cancel).flatMap {
                    case Outcome.Succeeded(fb) => fb
                    case Outcome.Errored(e)    => F.raiseError(e)
                    case Outcome.Canceled() =>
                      F.delay(held.holds(job)).flatMap { still =>
                        if still then
                          F.raiseError(new CancellationException("the handler cancelled itself"))
                        else gone
                      }
                  }
            }
          }
      }
    }
