package weir

/** How much a strategy may do at once.
  *
  * @param concurrency
  *   handler calls in flight at most (the seed used 100, its batch size)
  * @param queueCapacity
  *   tasks buffered between producers and handlers at most, for strategies with a queue (the seed
  *   used 200, twice its batch size)
  */
final case class Limits(concurrency: Concurrency, queueCapacity: Capacity):

  /** The same limits with `n` handler calls in flight at most. */
  def withConcurrency(n: Concurrency): Limits = copy(concurrency = n)

  /** The same limits with at most `n` tasks queued. */
  def withQueueCapacity(n: Capacity): Limits = copy(queueCapacity = n)

object Limits:

  /** The seed's limits: 100 handler calls in flight, queues of 200. */
  val default: Limits = Limits(Concurrency(100), Capacity(200))

  /** Limits from two numbers known only at run time; `Left` names the first that is not positive.
    */
  def of(concurrency: Int, queueCapacity: Int): Either[ConfigError, Limits] =
    for
      c <- Concurrency.from(concurrency)
      q <- Capacity.from(queueCapacity, "queue capacity")
    yield Limits(c, q)
