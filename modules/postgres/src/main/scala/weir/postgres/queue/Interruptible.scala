package weir.postgres.queue

import cats.effect.{Async, Fiber, Outcome}
import cats.effect.syntax.all.*
import cats.syntax.all.*
import java.util.concurrent.CancellationException
import java.util.concurrent.atomic.AtomicBoolean
import scala.concurrent.duration.FiniteDuration
import weir.engine.{Classified, TaskTimeout}

/** A job's handler as the worker runs it: in a fiber of its own, recorded in [[Held]] with the way
  * to cancel it, so that the heartbeat can interrupt it when it learns that the job is no longer
  * held (cancelled in the queue, or its lease lost: see [[WorkerEvent.Cancelled]]).
  *
  * A job with a timeout of its own ([[Job.timeout]], [[NewJob.withTimeout]]) has its handler
  * cancelled once it has run that long (its finalizers waited for), and the attempt fails with
  * [[JobTimedOut]]. A handler that [[JobDeadlines]] cancels for the worker's per-job timeout
  * ([[WorkerSettings.taskTimeout]]) fails with the engine's [[weir.engine.TaskTimeout]] (its
  * outcome then [[weir.engine.TaskOutcome.TimedOut]], as when the engine timed its attempts: the
  * worker's engine has no timeout of its own). A handler that completes as its time ends keeps its
  * outcome.
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
  // handler had ended by then (cancelling an ended fiber changes nothing: its outcome stands). The
  // timer is a fiber of its own that cancels the handler's; `fired` tells that cancellation apart.
  private def timed[F[_], B](job: Job, fiber: Fiber[F, Throwable, B])(using
      F: Async[F]
  ): F[Outcome[F, Throwable, B]] =
    job.timeout match
      case None => fiber.join
      case Some(after) =>
        F.delay(new AtomicBoolean(false)).flatMap { fired =>
          val expire = F.sleep(after) >> F.delay(fired.set(true)) >> fiber.cancel
          F.start(expire).flatMap { timer =>
            fiber.join.guarantee(timer.cancel).map {
              case Outcome.Canceled() if fired.get =>
                Outcome.errored(JobTimedOut(job.id, job.attempt, after))
              case ended => ended
            }
          }
        }

  /** Runs `handler` on `job` as [[Interruptible]] says, publishing [[WorkerEvent.Started]];
    * `workerTimeout`: the worker's per-job timeout that [[JobDeadlines]] keeps, if any.
    */
  def run[F[_], B](
      held: Held[F],
      events: Events[F],
      job: Job,
      handler: Job => F[B],
      workerTimeout: Option[FiniteDuration]
  )(using F: Async[F]): F[B] =
    // Built only when raised (an exception per job would cost its stack trace on every job).
    val gone: F[B] = F.defer(F.raiseError(new Interrupted(job)))
    F.uncancelable { poll =>
      F.delay(held.holds(job)).flatMap { holding =>
        if !holding then gone
        else
          F.start(F.defer(handler(job))).flatMap { fiber =>
            F.monotonic
              .flatMap(now => F.delay(held.started(job, fiber.cancel, now.toNanos)))
              .flatMap { registered =>
                if !registered then fiber.cancel >> gone
                else
                  events.publish(WorkerEvent.Started(job)) >>
                    poll(timed(job, fiber)).onCancel(fiber.cancel).flatMap {
                      case Outcome.Succeeded(fb) => fb
                      case Outcome.Errored(e)    => F.raiseError(e)
                      case Outcome.Canceled() =>
                        F.delay((held.holds(job), held.expired(job))).flatMap {
                          case (true, true) =>
                            workerTimeout.fold(
                              F.raiseError(new CancellationException("timed out"))
                            )(after => F.raiseError(new TaskTimeout(after)))
                          case (true, false) =>
                            F.raiseError(new CancellationException("the handler cancelled itself"))
                          case _ => gone
                        }
                    }
              }
          }
      }
    }
