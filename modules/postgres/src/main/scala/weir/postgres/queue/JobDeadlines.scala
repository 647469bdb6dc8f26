package weir.postgres.queue

import cats.effect.Async
import cats.effect.syntax.all.*
import cats.syntax.all.*
import scala.concurrent.duration.*

/** The worker's per-job timeout ([[WorkerSettings.taskTimeout]]), kept by one fiber for all the
  * jobs it holds rather than by a timer per job: every [[period]] it marks the handlers that have
  * run past the timeout in [[Held]] ([[Held.expire]]) and cancels them; [[Interruptible]] reads the
  * mark and fails the attempt with the engine's [[weir.engine.TaskTimeout]].
  *
  * Why not a timer per job: the engine's per-attempt timeout is a race (two fibers and a sleep per
  * job) and a timer fiber beside the handler's one fiber more; on two cores shared with PostgreSQL
  * either cost a third of a burn-down's rate (`bench/queue/typed.sh`, 2026-11-26). The price is
  * precision: a job runs at most its timeout plus one period (a fiftieth of the timeout, between 10
  * ms and 1 s). A job's own timeout ([[NewJob.withTimeout]]) keeps its exact timer.
  *
  * '''Concurrency.''' The scan reads a concurrent map; marking is one atomic step per job, so each
  * handler is cancelled once, and a handler that ends before its mark keeps its outcome. Each
  * cancellation runs in a fiber of its own (it waits for the handler's finalizers, which must not
  * hold up the next scan). '''Cancellation.''' Cancelling [[watch]] stops the scans; cancellations
  * already started go on.
  */
private[queue] object JobDeadlines:

  /** How often the timeout `after` is checked. */
  def period(after: FiniteDuration): FiniteDuration =
    (after / 50).max(10.millis).min(1.second)

  /** Never returns: every [[period]], cancels the handlers of `held` that have run past `after`. */
  def watch[F[_]](held: Held[F], after: FiniteDuration)(using F: Async[F]): F[Unit] =
    val every = period(after)
    (F.sleep(every) >> F.monotonic.flatMap { now =>
      F.delay(held.expire(now.toNanos - after.toNanos)).flatMap(_.traverse_(_.start.void))
    }).foreverM
