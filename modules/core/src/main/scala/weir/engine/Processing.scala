package weir.engine

import cats.effect.Async
import weir.{Limits, Source}
import weir.strategy.Strategy

/** The library's simplest entry point: run a handler over a source with a strategy, on the
  * [[Engine]] with its defaults (fail-fast, no timeout, no retry). Use the engine itself for
  * results, retries, timeouts, rate limits, statistics or a graceful stop.
  */
object Processing:

  /** Runs `handler` on every task of `source` with `strategy` (weir's default unless given).
    *
    * A handler error stops the run, as [[weir.strategy.Strategy]] describes, and surfaces as
    * [[weir.WeirError.TaskFailed]] naming the task that failed. Cancelling the returned effect
    * stops producers and handlers and returns once they have stopped.
    */
  def run[F[_]: Async, A](
      source: Source[F, A],
      strategy: Strategy = Strategy.default,
      limits: Limits = Limits.default
  )(handler: A => F[Unit]): F[Unit] =
    val settings = EngineSettings.default.withStrategy(strategy).withLimits(limits)
    Async[F].flatMap(Engine.create[F](settings))(_.runToEnd(source)(handler))
