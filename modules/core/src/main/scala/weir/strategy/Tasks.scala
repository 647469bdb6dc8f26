package weir.strategy

import cats.Monad
import cats.effect.kernel.Clock
import scala.concurrent.duration.FiniteDuration
import cats.syntax.all.*

/** What a strategy's workers do with the tasks they have taken: run one ([[one]]), or run a share
  * of them one after another ([[share]]).
  *
  * A share means exactly what running each task in order with [[one]] means; it exists so that the
  * caller may pay its costs once per share instead of once per task: weir's engine counts, times,
  * guards (error policy, retries, timeouts) and checks for a stop once per share, which is what
  * lets the default strategy run under the engine at its bare speed (EngineOverheadBench). A
  * strategy that has no shares calls [[one]] only.
  */
trait Tasks[F[_], A]:

  /** Runs one task; fails as it fails. */
  def one(task: A): F[Unit]

  /** Runs `tasks` in order; a failure stops the share there and fails it (the tasks after it do not
    * run), unless the caller's policy says to go on.
    */
  def share(tasks: List[A]): F[Unit]

  /** [[share]], and how long its tasks took to run: what a strategy sizes its next share by (weir's
    * default does). By default the share's time from start to end. The engine, which under a
    * per-task timeout runs a share in a fiber of its own, leaves out that fiber's waits to be
    * scheduled: with many workers each wait is every other worker's turn, not this share's time.
    */
  def timedShare(tasks: List[A])(using F: Clock[F]): F[FiniteDuration] =
    F.applicative.map(F.timed(share(tasks)))(_._1)

object Tasks:

  /** A handler as tasks: a share is the handler on each task in turn. */
  def of[F[_]: Monad, A](handler: A => F[Unit]): Tasks[F, A] = new Tasks[F, A]:
    def one(task: A): F[Unit] = handler(task)
    def share(tasks: List[A]): F[Unit] = tasks match
      case task :: Nil  => handler(task)
      case task :: rest => handler(task) >> share(rest)
      case Nil          => Monad[F].unit
