package weir

import cats.effect.Async
import cats.syntax.all.*

/** The library's entry point: run a handler over a source with a strategy. */
object Processing:

  /** Runs `handler` on every task of `source` with `strategy` (weir's default unless given).
    *
    * A handler error stops the run, as [[Strategy]] describes, and surfaces as
    * [[WeirError.TaskFailed]] naming the task that failed. Cancelling the returned effect stops
    * producers and handlers and returns once they have stopped.
    */
  def run[F[_]: Async, A](
      source: Source[F, A],
      strategy: Strategy = Strategy.default,
      limits: Limits = Limits.default
  )(handler: A => F[Unit]): F[Unit] =
    strategy.run(source, limits)(task =>
      handler(task).adaptError:
        case failed: WeirError.TaskFailed => failed
        case other                        => WeirError.TaskFailed(task, other)
    )
