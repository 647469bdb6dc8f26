package weir.strategy

import cats.effect.Async
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
  * strongest needs of them (a thread-blocking queue) need `Async`; most use only `Concurrent`.
  */
trait Strategy:

  /** The name used on the command line and in reports, in kebab case. */
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

  /** True when the producers run in fibers of their own and hand tasks over through a buffer, so
    * that interrupting a producer (to stop taking tasks) can never interrupt a handler: the engine
    * then stops the source by interrupting it, else it isolates the source first (see
    * `weir.engine.Haltable`).
    */
  def decoupled: Boolean = false

object Strategy:

  /** The seven strategies of the seed comparison, in the seed's order. */
  val seed: List[Strategy] = List(
    BatchIo,
    BlockingQueue,
    StreamQueue,
    PlainStream,
    PrefetchStream,
    ConcurrentProducerQueue,
    ConcurrentProducer
  )

  /** weir's own strategies, the default last. */
  val own: List[Strategy] = List(UnorderedPool, ConcurrentProducers, WorkerPool, WorkStealing, Weir)

  /** Every strategy that completes; the deadlocking demonstration is kept apart. */
  val all: List[Strategy] = seed ++ own

  /** The seed's thread-blocking demonstration, which deadlocks on a two-thread pool. */
  val deadlocking: Strategy = RealBlockingQueue

  /** What weir uses when nobody chooses. */
  val default: Strategy = Weir

  /** The strategy called `name` (any strategy, the deadlocking one included). */
  def named(name: String): Option[Strategy] = (deadlocking :: all).find(_.name == name)
