package weir.postgres.queue

import cats.effect.Temporal
import cats.effect.std.Random
import cats.syntax.all.*
import scala.concurrent.duration.FiniteDuration
import weir.engine.RetryPolicy

/** Backoff with full jitter, on core's [[weir.engine.RetryPolicy]] math: the delay after failure
  * `k` (1 for the first) is `policy.delay(k, u)` with `u` drawn uniformly from `[0, 1)` by
  * `random`. Used for a failed job's next run and for reconnecting; time is read only through
  * `Temporal`.
  */
private[weir] object Backoff:

  /** The delay after failure `k`. */
  def draw[F[_]: Temporal](policy: RetryPolicy, random: Random[F], k: Int): F[FiniteDuration] =
    random.nextDouble.map(policy.delay(k, _))

  /** Runs `fa`, and again after each failure that `again` accepts, however many, sleeping the
    * backoff of the failures in a row before each new try; other errors are raised. Core's
    * `RetryPolicy.retrying` with no limit on the attempts. Cancelling it cancels the try or the
    * sleep in progress.
    */
  def retrying[F[_], A](policy: RetryPolicy, random: Random[F], again: Throwable => Boolean)(
      fa: F[A]
  )(using F: Temporal[F]): F[A] =
    policy.unlimited.withRetryable(again).retrying(random)(fa)

  /** [[retrying]] every non-fatal error, however many times, with `onRetry` run before each backoff
    * (the failures in a row, the error, the delay): a worker's statements that must not end its run
    * for an error that may pass (a statement timeout, a lock, a privilege revoked for a while).
    * Cancelling it cancels the try or the sleep in progress.
    */
  def persisting[F[_], A](policy: RetryPolicy, random: Random[F], onRetry: RetryPolicy.Hook[F])(
      fa: F[A]
  )(using F: Temporal[F]): F[A] =
    policy.unlimited.withRetryable(_ => true).retrying(random, onRetry)(fa)
