package weir.engine

import cats.effect.kernel.Async
import cats.effect.std.Random
import cats.effect.syntax.all.*
import cats.syntax.all.*
import scala.concurrent.duration.*
import weir.WeirError

/** One engine's way of running a task: the policies of [[EngineSettings]] (rate, adaptive limit,
  * timeout, retries, error policy) around the handler, counted in [[EngineStats]].
  *
  * Two paths. [[plain]] is for the plain form with no policy set: no result, the fewest steps, and
  * latency sampled when tasks are fast. [[process]] is everything else: the task's outcome,
  * attempts and latency. Both check the stop flag when the task's effect runs (a strategy may build
  * it long before), so nothing starts after [[stopTaking]].
  */
private[engine] final class TaskExecution[F[_]](
    settings: EngineSettings,
    stats: EngineStats,
    bucket: Option[TokenBucket[F]],
    limiter: Option[AdaptiveLimiter[F]],
    random: Random[F],
    control: RunControl[F]
)(using F: Async[F]):

  /** No task starts from now on; tasks taken later end as not started. */
  def stopTaking(): Unit = control.refuseTasks()

  /** True when [[ShareRunner]] may run the tasks: no rate limit and no adaptive limit, which gate
    * each attempt on its own.
    */
  def sharesWill: Boolean = settings.rate.isEmpty && limiter.isEmpty

  /** True once tasks are no longer to start (read on every task or share: see [[RunControl]]). */
  def stopping: Boolean = !control.accepting

  /** One task from start to end: its [[TaskResult]], counted in the statistics. Its latency runs
    * from its first attempt's start (after any rate token and adaptive permit: waiting for those is
    * not the task's time) to its end, backoff waits included. Raises [[WeirError.TaskFailed]] for a
    * failure under [[ErrorPolicy.FailFast]].
    */
  def process[A, B](task: A, index: Long, handler: A => F[B]): F[TaskResult[A, B]] = F.defer {
    if stopping then
      F.delay(stats.notStarted(1))
        .as(TaskResult(task, index, TaskOutcome.NotStarted, 0, Duration.Zero))
    else
      F.delay(stats.started()) >> attempts(task, handler).flatMap { (outcome, tries, first) =>
        F.monotonic.flatMap { end =>
          val latency = end - first
          val result = TaskResult(task, index, outcome, tries, latency)
          outcome match
            case TaskOutcome.Succeeded(_) => F.delay(stats.succeeded(latency.toNanos)).as(result)
            case failure =>
              val failureClass = failure.failureClass.getOrElse(FailureClass.Raised("failed"))
              val counted = F.delay(stats.failed(failureClass, latency.toNanos))
              settings.onError match
                case ErrorPolicy.Skip     => counted.as(result)
                case ErrorPolicy.FailFast =>
                  // Nothing starts after the failure, even before the strategy sees it.
                  F.delay(stopTaking()) >> counted >>
                    F.raiseError(TaskExecution.named(task, causeOf(failure)))
        }
      }
  }

  private def causeOf(outcome: TaskOutcome[?]): Throwable = outcome match
    case TaskOutcome.Failed(error)   => error
    case TaskOutcome.TimedOut(after) => new TaskTimeout(after)
    case other                       => new IllegalStateException(s"task ended as $other")

  /** The task's attempts: the first, then, while the retry policy allows, the next ones
    * ([[RetryPolicy.recovering]]); the outcome, the attempts made, and when the first one started.
    * A success at the first attempt costs nothing of the retry machinery.
    */
  private def attempts[A, B](
      task: A,
      handler: A => F[B]
  ): F[(TaskOutcome[B], Int, FiniteDuration)] =
    once(task, handler).flatMap { (started, result) =>
      result match
        case Right(value) => F.pure((TaskOutcome.Succeeded(value), 1, started))
        case Left(error) =>
          val again = once(task, handler).flatMap((_, r) => F.fromEither(r))
          settings.retry.recovering(error, random, retried)(again).map { (last, tries) =>
            val outcome = last match
              case Right(value)               => TaskOutcome.Succeeded(value)
              case Left(timeout: TaskTimeout) => TaskOutcome.TimedOut(timeout.after)
              case Left(failure)              => TaskOutcome.Failed(failure)
            (outcome, tries, started)
          }
    }

  /** Counts a retry (the hook of [[RetryPolicy.recovering]], shared with [[ShareRunner]]). */
  val retried: RetryPolicy.Hook[F] = (_, _, _) => F.delay(stats.retried())

  /** One attempt: a rate token, a permit of the adaptive limit, then the handler under the per-task
    * timeout; when it started (after the token and the permit) and how it ended. The permit is held
    * for the call alone, and told the call's latency and whether it failed with an overload error
    * (a cancelled call tells nothing).
    */
  private def once[A, B](task: A, handler: A => F[B]): F[(FiniteDuration, Either[Throwable, B])] =
    val call = settings.taskTimeout match
      case None          => handler(task).attempt
      case Some(timeout) =>
        // The fallback is built only when it is needed: an exception per task costs its stack trace.
        handler(task).timeoutTo(timeout, F.defer(F.raiseError(new TaskTimeout(timeout)))).attempt
    val limited = limiter match
      case None => F.monotonic.flatMap(start => call.map(start -> _))
      case Some(l) =>
        F.uncancelable { poll =>
          poll(l.acquire).flatMap { epoch =>
            F.monotonic.flatMap { start =>
              poll(call).onCancel(l.release(epoch, None)).flatMap { result =>
                F.monotonic.flatMap { end =>
                  val sample = ((end - start).toNanos, overloaded(result))
                  l.release(epoch, Some(sample)).as(start -> result)
                }
              }
            }
          }
        }
    bucket.fold(limited)(_.acquire >> limited)

  private def overloaded[B](result: Either[Throwable, B]): Boolean = result match
    case Left(c: Classified) => c.overload
    case Left(_)             => true
    case Right(_)            => false

private[engine] object TaskExecution:

  /** The error a task failed for good with, naming the task ([[WeirError.TaskFailed]]); a handler
    * error that already names its task (a nested run) keeps its name.
    */
  def named(task: Any, error: Throwable): Throwable = error match
    case already: WeirError.TaskFailed => already
    case _                             => WeirError.TaskFailed(task, error)
