package weir.postgres.queue

import scala.concurrent.duration.FiniteDuration
import weir.{Capacity, Concurrency, Limits, NonNegativeDuration, PositiveDuration}
import weir.engine.{EngineSettings, ErrorPolicy, RateLimit, RetryPolicy}
import weir.strategy.Strategy

/** How a [[Worker]] runs jobs on weir's engine, as one immutable value: only what a worker honours.
  *
  * A worker's run is an [[weir.engine.Engine]] run whose settings ([[engine]]) it builds itself
  * from this value. Two of an engine's settings are the worker's to decide, so this value has no
  * way to set them: a failed attempt never stops the run ([[weir.engine.ErrorPolicy.Skip]]), and an
  * attempt is never retried inside the engine ([[weir.engine.RetryPolicy.none]]): the queue retries
  * a failed attempt as a new attempt after the job's backoff ([[QueueSettings.backoff]]), up to the
  * job's `maxAttempts`; retrying inside an attempt too would multiply the attempts and could
  * outlive the lease.
  *
  * Defaults ([[WorkerSettings.default]]), the engine's: weir's default strategy, 100 jobs in
  * flight, 200 buffered between the claims and the handlers, no rate limit, no per-attempt timeout,
  * a 30 s grace period on stop.
  *
  * Every `withX` is total: the values it takes are validated when they are made
  * ([[weir.Concurrency]], [[weir.Capacity]], [[weir.PositiveDuration]],
  * [[weir.NonNegativeDuration]]).
  */
final case class WorkerSettings private (engine: EngineSettings):

  /** How claimed jobs flow to the handlers (see [[weir.strategy.Strategy]]). */
  def strategy: Strategy = engine.strategy

  /** Jobs in flight at most, and jobs buffered between the claim loop and the handlers at most. */
  def limits: Limits = engine.limits

  /** Attempts start no faster than this, if set. */
  def rate: Option[RateLimit] = engine.rate

  /** Each attempt is cancelled after this and fails (the job is retried after its backoff). */
  def taskTimeout: Option[FiniteDuration] = engine.taskTimeout

  /** After a stop, jobs in flight get this long to finish before they are cancelled and released.
    */
  def stopGrace: FiniteDuration = engine.stopGrace

  /** See [[strategy]]. */
  def withStrategy(s: Strategy): WorkerSettings = WorkerSettings(engine.withStrategy(s))

  /** At most `n` jobs in flight. */
  def withConcurrency(n: Concurrency): WorkerSettings = WorkerSettings(engine.withConcurrency(n))

  /** At most `n` jobs buffered between the claim loop and the handlers. */
  def withQueueCapacity(n: Capacity): WorkerSettings = WorkerSettings(engine.withQueueCapacity(n))

  /** Attempts start no faster than `limit` allows. */
  def withRate(limit: RateLimit): WorkerSettings = WorkerSettings(engine.withRate(limit))

  /** No rate limit. */
  def withoutRate: WorkerSettings = WorkerSettings(engine.withoutRate)

  /** Each attempt is cancelled once it has run `d` and fails as timed out. The worker checks every
    * fiftieth of `d` (between 10 ms and 1 s), so an attempt may run up to that much longer; a job's
    * own timeout ([[NewJob.withTimeout]]) is exact.
    */
  def withTaskTimeout(d: PositiveDuration): WorkerSettings =
    WorkerSettings(engine.withTaskTimeout(d))

  /** No per-attempt timeout. */
  def withoutTaskTimeout: WorkerSettings = WorkerSettings(engine.withoutTaskTimeout)

  /** After a stop, jobs in flight get `d` to finish. */
  def withStopGrace(d: NonNegativeDuration): WorkerSettings =
    WorkerSettings(engine.withStopGrace(d))

object WorkerSettings:

  /** The engine's defaults, with the worker's error and retry policies (see [[WorkerSettings]]). */
  val default: WorkerSettings =
    WorkerSettings(
      EngineSettings.default.withErrorPolicy(ErrorPolicy.Skip).withRetry(RetryPolicy.none)
    )
