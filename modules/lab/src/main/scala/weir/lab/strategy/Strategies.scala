package weir.lab.strategy

import weir.strategy.Strategy

/** Every strategy `weir compare` runs, by name: the seed's seven (this package, kept for fidelity
  * to seed 000), weir's own (`Strategy.own`, in core), and the seed's deadlock demonstration.
  */
object Strategies:

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

  /** Every strategy that completes, the seed's then weir's own; the deadlocking demonstration is
    * kept apart.
    */
  val all: List[Strategy] = seed ++ Strategy.own

  /** The seed's thread-blocking demonstration, which deadlocks on a two-thread pool. */
  val deadlocking: Strategy = RealBlockingQueue

  /** The strategy called `name` (any strategy, the deadlocking one included). */
  def named(name: String): Option[Strategy] = (deadlocking :: all).find(_.name == name)
