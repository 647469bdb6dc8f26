package weir.postgres.queue

import cats.effect.Async
import cats.effect.std.Random
import cats.syntax.all.*
import java.util.concurrent.TimeoutException
import weir.engine.{FailureClass, Recorder, RetryPolicy, Snapshot, TaskOutcome, TaskResult}

/** A worker's measurement point on its run ([[weir.engine.Recorder]]). Every job's result is
  * acknowledged: a completion, a discard or a snooze (the handler raised [[JobControl.Discard]] or
  * [[JobControl.Snooze]]), or a failed attempt with the delay drawn from `backoff`, queued to
  * `completer` (whose written batches the worker counts), and published as a [[WorkerEvent]]; a job
  * taken but never started is left held, to be released at the end; a snoozed claim is given to
  * `snoozing` (the worker stops holding it) before its snooze is queued; a job whose handler was
  * interrupted because the worker no longer holds it ([[Interruptible.Interrupted]]) is not written
  * back (the heartbeat that interrupted it published its [[WorkerEvent.Cancelled]]). On the run's
  * tick, `sampled` is given the engine's snapshot: the worker publishes it with its counts as one
  * [[Worker.Progress]], what its live view reads.
  *
  * '''Concurrency.''' [[record]] runs in each job's fiber, as many at once as jobs in flight, and
  * only queues the write (waiting while the completer's queue is full): nothing else per job.
  * '''Errors.''' An error of the completer's queue fails the run, as any recorder error does.
  */
private[queue] final class Acknowledger[F[_]](
    completer: Completer[F],
    backoff: RetryPolicy,
    random: Random[F],
    events: Events[F],
    sampled: Snapshot => F[Unit],
    snoozing: Job.Claim => F[Unit]
)(using F: Async[F])
    extends Recorder[F, Job, Any]:

  def record(r: TaskResult[Job, Any]): F[Unit] =
    val job = r.task
    val claim = job.claim
    def failed(error: Throwable, message: String) =
      Backoff.draw(backoff, random, claim.attempt).flatMap { delay =>
        val last = job.attempt >= job.maxAttempts
        completer.fail(Fenced.Failure(claim, message, delay)) >>
          events.publish(WorkerEvent.Failed(job, error, if last then None else Some(delay))) >>
          events.publish(WorkerEvent.Discarded(job, message)).whenA(last)
      }
    r.outcome match
      case TaskOutcome.Succeeded(_) =>
        completer.complete(claim) >> events.publish(WorkerEvent.Succeeded(job, r.latency))
      case TaskOutcome.Failed(_: Interruptible.Interrupted) => F.unit
      case TaskOutcome.Failed(JobControl.Discard(reason)) =>
        completer.discard(Fenced.Discarded(claim, reason)) >>
          events.publish(WorkerEvent.Discarded(job, reason))
      case TaskOutcome.Failed(JobControl.Snooze(after)) =>
        // Forgotten before it is written: once written, the job may be claimed again under the
        // same attempt, and that claim must stay held.
        snoozing(claim) >> completer.snooze(Fenced.Snoozed(claim, after)) >>
          events.publish(WorkerEvent.Snoozed(job, after))
      case TaskOutcome.Failed(e) =>
        val label = FailureClass.of(e).label
        failed(e, Option(e.getMessage).fold(label)(m => s"$label: $m"))
      case TaskOutcome.TimedOut(after) =>
        failed(new TimeoutException(s"timed out after $after"), s"timed out after $after")
      case TaskOutcome.NotStarted => F.unit // released at the end

  def sample(snapshot: Snapshot): F[Unit] = sampled(snapshot)
