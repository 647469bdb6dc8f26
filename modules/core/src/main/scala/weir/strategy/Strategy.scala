package weir.strategy

import cats.effect.Async
import cats.syntax.all.*
import weir.{Limits, Source}

/** How tasks flow from a [[Source]]'s producers to a handler.
  *
  * Every strategy hands each task produced to the handler exactly once, completes when the source
  * is exhausted and every handler call has finished, and:
  *   - on a handler or producer error, stops launching, cancels what is in flight and fails with
  *     that error (use [[weir.engine.Processing.run]] to have handler errors name their task);
  *   - on cancellation, cancels producers and handler calls in flight and returns once they have
  *     stopped; no fiber it started outlives it.
  *
  * The bound is `Async` because strategies are chosen at run time behind one interface and the
  * strongest needs of them (the seed's thread-blocking queue, in the lab) need `Async`; most use
  * only `Concurrent`.
  */
trait Strategy:

  /** Its name, in kebab case, as reports and registries (the lab's, which `weir compare` reads)
    * call it.
    */
  def name: String

  /** One line on what the strategy does. */
  def summary: String

  /** Runs `handler` on every task of `source`, within `limits`. */
  def run[F[_]: Async, A](source: Source[F, A], limits: Limits)(handler: A => F[Unit]): F[Unit]

  /** [[run]] with the tasks run as `tasks` says: a strategy whose workers take shares of tasks runs
    * them with [[Tasks.share]] (weir's default); the others run each with [[Tasks.one]].
    */
  def runTasks[F[_]: Async, A](source: Source[F, A], limits: Limits)(tasks: Tasks[F, A]): F[Unit] =
    run(source, limits)(tasks.one)

  /** [[runTasks]] that stops taking tasks from `source` once `halt` completes, never interrupting a
    * handler: the run then ends when the tasks already taken have run (the engine's graceful stop).
    * By default each partition is isolated in a fiber of its own ([[Haltable]], two fiber hand-offs
    * per chunk), since a strategy may run handlers in the source's own scope; a strategy whose
    * producers only fill a buffer overrides this to cancel them at the halt, for nothing per chunk.
    */
  def runTasksUntil[F[_]: Async, A](source: Source[F, A], limits: Limits, halt: F[Unit])(
      tasks: Tasks[F, A]
  ): F[Unit] =
    runTasks(source.mapPartitions(Haltable(_, halt)), limits)(tasks)

object Strategy:

  /** `producers` until `halt`, if any, completes: then they are cancelled. For strategies whose
    * producers only fill a buffer, so that cancelling them never touches a handler. Errors of
    * `producers` are raised; cancelling it cancels them.
    */
  def until[F[_]: Async](producers: F[Unit], halt: Option[F[Unit]]): F[Unit] =
    halt.fold(producers)(h => Async[F].race(producers, h).void)

  /** For a strategy author: a strategy whose producers only fill a buffer implements [[runUntil]],
    * taking the halt as [[until]] does, and gets [[Strategy.runTasksUntil]] (the engine's graceful
    * stop) for nothing per chunk, instead of each partition isolated in a fiber of its own.
    */
  trait Buffered extends Strategy:
    def run[F[_]: Async, A](source: Source[F, A], limits: Limits)(handler: A => F[Unit]): F[Unit] =
      runUntil(source, limits, None)(handler)

    override def runTasksUntil[F[_]: Async, A](source: Source[F, A], limits: Limits, halt: F[Unit])(
        tasks: Tasks[F, A]
    ): F[Unit] = runUntil(source, limits, Some(halt))(tasks.one)

    /** [[run]], the producers cancelled at `halt` if one is given. */
    def runUntil[F[_]: Async, A](source: Source[F, A], limits: Limits, halt: Option[F[Unit]])(
        handler: A => F[Unit]
    ): F[Unit]

  /** weir's own strategies, the default last. (The seed's seven, kept for fidelity to seed 000, and
    * its deadlock demonstration are in the lab module, `weir.lab.strategy`.)
    */
  val own: List[Strategy] = List(UnorderedPool, ConcurrentProducers, WorkerPool, WorkStealing, Weir)

  /** What weir uses when nobody chooses. */
  val default: Strategy = Weir
