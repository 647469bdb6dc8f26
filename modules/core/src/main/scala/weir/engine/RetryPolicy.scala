package weir.engine

import cats.effect.kernel.Temporal
import cats.effect.std.Random
import cats.syntax.all.*
import scala.concurrent.duration.*
import scala.util.control.NonFatal
import weir.{Attempts, NonNegativeDuration}

/** When and how often a failed task is tried again: up to `maxAttempts` attempts in all, the
  * failures that `retryable` accepts, with a delay between attempts drawn from a schedule, and at
  * most `maxTotalDelay` of delays in all when one is set.
  *
  * Schedules: exponential with full jitter ([[RetryPolicy.exponential]]: the delay after failed
  * attempt `k`, 1 for the first, is drawn uniformly from `[0, ceiling(k)]`, where `ceiling(k) =
  * min(maxDelay, initialDelay * 2^(k-1))`, so that retries of many tasks that failed together
  * spread out instead of arriving together again), or constant ([[RetryPolicy.constant]]: the same
  * delay every time, no jitter). A per-task timeout that fires counts as a failed attempt like any
  * other. A `maxDelay` below `initialDelay` caps every delay at `maxDelay`, as the formula says.
  *
  * Every `withX` and constructor is total: attempts and delays are validated types
  * ([[weir.Attempts]], [[weir.NonNegativeDuration]]), checked where they are made.
  *
  * Defaults ([[RetryPolicy.none]]): one attempt, no retry; when attempts are raised, backoff from
  * 100 ms to at most 10 s, every non-fatal error retryable, no cap on the total delay.
  *
  * [[retrying]] and [[recovering]] run a schedule: the engine's retries, the queue's reconnects.
  */
final case class RetryPolicy private (
    maxAttempts: Attempts,
    initialDelay: NonNegativeDuration,
    maxDelay: NonNegativeDuration,
    retryable: Throwable => Boolean,
    jitter: Boolean = true,
    maxTotalDelay: Option[NonNegativeDuration] = None
):

  /** True when a task may be tried more than once. */
  def retries: Boolean = maxAttempts > 1

  /** The same policy with `n` attempts in all (1 = no retry). */
  def withMaxAttempts(n: Attempts): RetryPolicy = copy(maxAttempts = n)

  /** The same policy without a limit on the number of attempts (a reconnect loop, which a cap on
    * the total delay or [[withRetryable]] may still end).
    */
  def unlimited: RetryPolicy = copy(maxAttempts = Attempts(Int.MaxValue))

  /** The same policy with backoff from `initial` doubling up to `max` (a `max` below `initial` caps
    * every delay at `max`), with full jitter.
    */
  def withBackoff(initial: NonNegativeDuration, max: NonNegativeDuration): RetryPolicy =
    copy(initialDelay = initial, maxDelay = max, jitter = true)

  /** The same policy retrying only the failures `p` accepts (it is never asked about fatal errors,
    * which are never retried).
    */
  def withRetryable(p: Throwable => Boolean): RetryPolicy = copy(retryable = p)

  /** The same policy giving up rather than delaying more than `total` in all (the delays only, not
    * the attempts' own time).
    */
  def withMaxTotalDelay(total: NonNegativeDuration): RetryPolicy =
    copy(maxTotalDelay = Some(total))

  /** Whether a task whose attempt number `attempt` (1 for the first) failed with `error` gets
    * another attempt (before the cap on the total delay, which [[recovering]] applies).
    */
  def shouldRetry(attempt: Int, error: Throwable): Boolean =
    attempt < maxAttempts && NonFatal(error) && retryable(error)

  /** The longest delay after failed attempt `attempt` (1 for the first). */
  def ceiling(attempt: Int): FiniteDuration =
    val doublings = math.min(math.max(attempt - 1, 0), 62)
    val nanos = initialDelay.toNanos.toDouble * math.pow(2, doublings.toDouble)
    if nanos >= maxDelay.toNanos.toDouble then maxDelay else nanos.toLong.nanos

  /** The delay after failed attempt `attempt`, given a uniform draw `fraction` in `[0, 1)` (which a
    * schedule without jitter ignores).
    */
  def delay(attempt: Int, fraction: Double): FiniteDuration =
    if jitter then (ceiling(attempt).toNanos.toDouble * fraction).toLong.nanos
    else ceiling(attempt)

  /** After attempt 1 of something failed with `error`: the next attempts of `attempt`, each after
    * the schedule's delay, while the policy retries what it raises. `onRetry(k, error, delay)` runs
    * before the delay after failed attempt `k`. The last result (a value, or the error that was not
    * retried) and the number of attempts made in all, the first included.
    *
    * Cancelling it cancels the attempt or the delay in progress. Fatal errors are not retried.
    */
  def recovering[F[_], A](error: Throwable, random: Random[F], onRetry: RetryPolicy.Hook[F])(
      attempt: F[A]
  )(using F: Temporal[F]): F[(Either[Throwable, A], Int)] =
    def after(k: Int, error: Throwable, delayed: FiniteDuration): F[(Either[Throwable, A], Int)] =
      if !shouldRetry(k, error) then F.pure((Left(error), k))
      else
        random.nextDouble.map(delay(k, _)).flatMap { wait =>
          if maxTotalDelay.exists(delayed + wait > _) then F.pure((Left(error), k))
          else
            onRetry(k, error, wait) >> F.sleep(wait) >> attempt.attempt.flatMap {
              case Right(value) => F.pure((Right(value), k + 1))
              case Left(next)   => after(k + 1, next, delayed + wait)
            }
        }
    after(1, error, Duration.Zero)

  /** `attempt`, tried again on failure as [[recovering]] says; its value, or the last error. */
  def retrying[F[_], A](random: Random[F])(attempt: F[A])(using F: Temporal[F]): F[A] =
    retrying(random, RetryPolicy.noHook[F])(attempt)

  /** [[retrying]] with `onRetry` run before each retry's delay. */
  def retrying[F[_], A](random: Random[F], onRetry: RetryPolicy.Hook[F])(attempt: F[A])(using
      F: Temporal[F]
  ): F[A] =
    attempt.handleErrorWith(e =>
      recovering(e, random, onRetry)(attempt).flatMap((last, _) => F.fromEither(last))
    )

object RetryPolicy:

  /** What runs before each retry's delay: the failed attempt's number (1 for the first), its error,
    * and the delay about to be slept.
    */
  type Hook[F[_]] = (Int, Throwable, FiniteDuration) => F[Unit]

  /** A hook that does nothing. */
  def noHook[F[_]](using F: Temporal[F]): Hook[F] = (_, _, _) => F.unit

  /** One attempt, no retry. */
  val none: RetryPolicy = RetryPolicy(
    maxAttempts = Attempts.once,
    initialDelay = NonNegativeDuration.millis(100),
    maxDelay = NonNegativeDuration.seconds(10),
    retryable = _ => true
  )

  /** `maxAttempts` attempts with backoff from `initial` doubling up to `max`, with full jitter,
    * every non-fatal error retryable.
    */
  def exponential(
      maxAttempts: Attempts,
      initial: NonNegativeDuration = NonNegativeDuration.millis(100),
      max: NonNegativeDuration = NonNegativeDuration.seconds(10)
  ): RetryPolicy =
    none.withMaxAttempts(maxAttempts).withBackoff(initial, max)

  /** `maxAttempts` attempts, `delay` apart (no jitter), every non-fatal error retryable. */
  def constant(maxAttempts: Attempts, delay: NonNegativeDuration): RetryPolicy =
    exponential(maxAttempts, delay, delay).copy(jitter = false)
