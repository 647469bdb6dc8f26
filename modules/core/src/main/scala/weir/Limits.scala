package weir

/** How much a strategy may do at once.
  *
  * @param concurrency
  *   handler calls in flight at most (the seed used 100, its batch size)
  * @param queueCapacity
  *   tasks buffered between producers and handlers at most, for strategies with a queue (the seed
  *   used 200, twice its batch size)
  */
final case class Limits private (concurrency: Int, queueCapacity: Int):

  /** The same limits with `n` handler calls in flight at most; `n` must be positive. */
  def withConcurrency(n: Int): Limits = Limits.unsafe(n, queueCapacity)

  /** The same limits with at most `n` tasks queued; `n` must be positive. */
  def withQueueCapacity(n: Int): Limits = Limits.unsafe(concurrency, n)

object Limits:

  /** The seed's limits: 100 handler calls in flight, queues of 200. */
  val default: Limits = new Limits(100, 200)

  /** Limits from two positive numbers; `Left` names the one that is not. */
  def of(concurrency: Int, queueCapacity: Int): Either[String, Limits] =
    if concurrency <= 0 then Left(s"concurrency must be positive, got $concurrency")
    else if queueCapacity <= 0 then Left(s"queue capacity must be positive, got $queueCapacity")
    else Right(new Limits(concurrency, queueCapacity))

  private def unsafe(concurrency: Int, queueCapacity: Int): Limits =
    of(concurrency, queueCapacity).fold(msg => throw new IllegalArgumentException(msg), identity)
