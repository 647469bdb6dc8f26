package weir.lab.strategy

import cats.effect.Async
import cats.syntax.all.*
import weir.{Limits, Source}
import weir.strategy.{Strategy, Tasks}

/** A seed strategy whose producers only fill a buffer: at the engine's graceful stop
  * ([[Strategy.runTasksUntil]]) its producers are cancelled when the halt comes, which never
  * touches a handler, instead of each partition being isolated in a fiber of its own (two fiber
  * hand-offs per chunk). Core's buffered strategies do the same; this is written against
  * [[Strategy]]'s public methods only.
  */
private[strategy] trait Buffered extends Strategy:
  def run[F[_]: Async, A](source: Source[F, A], limits: Limits)(handler: A => F[Unit]): F[Unit] =
    runUntil(source, limits, None)(handler)

  override def runTasksUntil[F[_]: Async, A](source: Source[F, A], limits: Limits, halt: F[Unit])(
      tasks: Tasks[F, A]
  ): F[Unit] = runUntil(source, limits, Some(halt))(tasks.one)

  /** [[run]], the producers cancelled at `halt` if one is given. */
  def runUntil[F[_]: Async, A](source: Source[F, A], limits: Limits, halt: Option[F[Unit]])(
      handler: A => F[Unit]
  ): F[Unit]

private[strategy] object Buffered:

  /** `producers` until `halt`, if any, completes: then they are cancelled. */
  def until[F[_]: Async](producers: F[Unit], halt: Option[F[Unit]]): F[Unit] =
    halt.fold(producers)(h => Async[F].race(producers, h).void)
