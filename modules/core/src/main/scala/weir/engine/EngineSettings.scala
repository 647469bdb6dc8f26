package weir.engine

import weir.{Capacity, Concurrency, Limits, NonNegativeDuration, PositiveDuration}
import weir.strategy.Strategy

/** Everything that shapes a run of the [[Engine]], as one immutable value.
  *
  * Defaults ([[EngineSettings.default]]): weir's default strategy, 100 tasks in flight (a fixed
  * limit), queues of 200, no rate limit, no per-task timeout, one attempt ([[RetryPolicy.none]]),
  * fail-fast ([[ErrorPolicy.FailFast]]), a 30 s grace period on stop.
  *
  * Every `withX` is total: the values that could be wrong are validated types
  * ([[weir.Concurrency]], [[weir.Capacity]], [[weir.PositiveDuration]],
  * [[weir.NonNegativeDuration]]), checked where they are made.
  */
final case class EngineSettings private (
    strategy: Strategy,
    limits: Limits,
    rate: Option[RateLimit],
    taskTimeout: Option[PositiveDuration],
    retry: RetryPolicy,
    onError: ErrorPolicy,
    stopGrace: NonNegativeDuration,
    adaptive: Option[AdaptiveConcurrency]
):

  /** How tasks flow from the source to the handler (see [[weir.strategy.Strategy]]). Not used by
    * [[Engine.resultsInOrder]].
    */
  def withStrategy(s: Strategy): EngineSettings = copy(strategy = s)

  /** At most `n` tasks in flight. Replaces an adaptive limit. */
  def withConcurrency(n: Concurrency): EngineSettings =
    copy(limits = limits.withConcurrency(n), adaptive = None)

  /** A limit that moves between `a.min` and `a.max` from measured latency and errors (see
    * [[AdaptiveConcurrency]]): the strategy runs `a.max` tasks at most, and attempts beyond the
    * current limit wait for a permit.
    */
  def withAdaptiveConcurrency(a: AdaptiveConcurrency): EngineSettings =
    copy(limits = limits.withConcurrency(a.max), adaptive = Some(a))

  /** At most `n` tasks buffered between the source and the handlers. */
  def withQueueCapacity(n: Capacity): EngineSettings =
    copy(limits = limits.withQueueCapacity(n))

  /** Both bounds at once (a fixed concurrency: replaces an adaptive limit). */
  def withLimits(l: Limits): EngineSettings = copy(limits = l, adaptive = None)

  /** Attempts start no faster than `limit` allows. */
  def withRate(limit: RateLimit): EngineSettings = copy(rate = Some(limit))

  /** No rate limit. */
  def withoutRate: EngineSettings = copy(rate = None)

  /** Each attempt is cancelled after `d` and counts as [[TaskOutcome.TimedOut]]. */
  def withTaskTimeout(d: PositiveDuration): EngineSettings = copy(taskTimeout = Some(d))

  /** No per-task timeout. */
  def withoutTaskTimeout: EngineSettings = copy(taskTimeout = None)

  /** Failed attempts are retried as `policy` says. */
  def withRetry(policy: RetryPolicy): EngineSettings = copy(retry = policy)

  /** What a task that failed for good does to the run. */
  def withErrorPolicy(policy: ErrorPolicy): EngineSettings = copy(onError = policy)

  /** After a stop, tasks in flight get `d` to finish before they are cancelled (zero: at once). */
  def withStopGrace(d: NonNegativeDuration): EngineSettings = copy(stopGrace = d)

object EngineSettings:

  /** weir's defaults (see [[EngineSettings]]). */
  val default: EngineSettings = EngineSettings(
    strategy = Strategy.default,
    limits = Limits.default,
    rate = None,
    taskTimeout = None,
    retry = RetryPolicy.none,
    onError = ErrorPolicy.FailFast,
    stopGrace = NonNegativeDuration.seconds(30),
    adaptive = None
  )
