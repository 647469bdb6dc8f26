package weir.postgres.queue

import cats.effect.{Async, Outcome}
import cats.effect.syntax.all.*
import cats.syntax.all.*
import java.util.concurrent.CancellationException
import weir.engine.Classified

/** A job's handler as the worker runs it: in a fiber of its own, recorded in [[Held]] with the way
  * to cancel it, so that the heartbeat can interrupt it when it learns that the job is no longer
  * held (cancelled in the queue, or its lease lost: see [[WorkerEvent.Cancelled]]).
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

  /** Runs `handler` on `job` as [[Interruptible]] says, publishing [[WorkerEvent.Started]]. */
  def run[F[_], B](held: Held[F], events: Events[F], job: Job, handler: Job => F[B])(using
      F: Async[F]
  ): F[B] =
    val gone: F[B] = F.raiseError(new Interrupted(job))
    F.uncancelable { poll =>
      F.delay(held.holds(job)).flatMap { holding =>
        if !holding then gone
        else
          F.start(F.defer(handler(job))).flatMap { fiber =>
            F.delay(held.started(job, fiber.cancel)).flatMap { registered =>
              if !registered then fiber.cancel >> gone
              else
                events.publish(WorkerEvent.Started(job)) >>
                  poll(fiber.join).onCancel(fiber.cancel).flatMap {
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
