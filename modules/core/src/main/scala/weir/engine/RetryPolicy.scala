package weir.engine

import scala.concurrent.duration.*
import scala.util.control.NonFatal

/** When and how often a failed task is tried again: up to `maxAttempts` attempts in all, the
  * failures that `retryable` accepts, with exponential backoff and full jitter between attempts.
  *
  * The delay after failed attempt `k` (1 for the first) is drawn uniformly from `[0, ceiling(k)]`,
  * where `ceiling(k) = min(maxDelay, initialDelay * 2^(k-1))` ("full jitter": retries of many tasks
  * that failed together spread out instead of arriving together again). A per-task timeout that
  * fires counts as a failed attempt like any other (its error is a
  * `java.util.concurrent.TimeoutException`).
  *
  * Defaults ([[RetryPolicy.none]]): one attempt, no retry; when attempts are raised, backoff from
  * 100 ms to at most 10 s, every non-fatal error retryable.
  */
final case class RetryPolicy private (
    maxAttempts: Int,
    initialDelay: FiniteDuration,
    maxDelay: FiniteDuration,
    retryable: Throwable => Boolean
):

  /** True when a task may be tried more than once. */
  def retries: Boolean = maxAttempts > 1

  /** The same policy with `n` attempts in all (1 = no retry); `Left` when `n < 1`. */
  def withMaxAttempts(n: Int): Either[String, RetryPolicy] =
    if n < 1 then Left(s"attempts must be at least 1, got $n") else Right(copy(maxAttempts = n))

  /** The same policy with backoff from `initial` doubling up to `max`; `Left` unless `0 <= initial
    * <= max`.
    */
  def withBackoff(initial: FiniteDuration, max: FiniteDuration): Either[String, RetryPolicy] =
    if initial < Duration.Zero then Left(s"the initial backoff must not be negative, got $initial")
    else if max < initial then Left(s"the maximum backoff $max is below the initial $initial")
    else Right(copy(initialDelay = initial, maxDelay = max))

  /** The same policy retrying only the failures `p` accepts (it is never asked about fatal errors,
    * which are never retried).
    */
  def withRetryable(p: Throwable => Boolean): RetryPolicy = copy(retryable = p)

  /** Whether a task whose attempt number `attempt` (1 for the first) failed with `error` gets
    * another attempt.
    */
  def shouldRetry(attempt: Int, error: Throwable): Boolean =
    attempt < maxAttempts && NonFatal(error) && retryable(error)

  /** The longest delay after failed attempt `attempt` (1 for the first). */
  def ceiling(attempt: Int): FiniteDuration =
    val doublings = math.min(math.max(attempt - 1, 0), 62)
    val nanos = initialDelay.toNanos.toDouble * math.pow(2, doublings.toDouble)
    if nanos >= maxDelay.toNanos.toDouble then maxDelay else nanos.toLong.nanos

  /** The delay after failed attempt `attempt`, given a uniform draw `fraction` in `[0, 1)`. */
  def delay(attempt: Int, fraction: Double): FiniteDuration =
    (ceiling(attempt).toNanos.toDouble * fraction).toLong.nanos

object RetryPolicy:

  /** One attempt, no retry. */
  val none: RetryPolicy = RetryPolicy(1, 100.millis, 10.seconds, _ => true)

  /** `maxAttempts` attempts with backoff from `initial` doubling up to `max`, every non-fatal error
    * retryable; `Left` says which value is wrong.
    */
  def exponential(
      maxAttempts: Int,
      initial: FiniteDuration = 100.millis,
      max: FiniteDuration = 10.seconds
  ): Either[String, RetryPolicy] =
    none.withMaxAttempts(maxAttempts).flatMap(_.withBackoff(initial, max))
