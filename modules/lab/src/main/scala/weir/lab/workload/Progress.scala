package weir.lab.workload

import cats.effect.Sync
import java.util.concurrent.atomic.AtomicLong

/** Counts what a run of the seed workload has produced and handled, for a watchdog that tells a
  * slow run from a stuck one (`weir.lab.run.Runner`) and for tests.
  *
  * Two counters and nothing else, whatever the run's length: the seed's lane of `P` and `C` events
  * is drawn from the engine's statistics instead (`weir.lab.compare.Lane`).
  *
  * Safe to update from any number of fibers and threads at once (atomics; two updates per batch or
  * task, far below any handler's cost). Readers see each counter exact on its own, not both at one
  * instant.
  */
final class Progress private ():
  private val producedCount = new AtomicLong
  private val consumedCount = new AtomicLong

  /** Records a batch of `size` tasks produced. */
  def batchProduced[F[_]: Sync](size: Int): F[Unit] =
    Sync[F].delay(producedCount.addAndGet(size.toLong): Unit)

  /** Records one task handled. */
  def taskConsumed[F[_]: Sync]: F[Unit] = Sync[F].delay(consumedCount.incrementAndGet(): Unit)

  /** Tasks produced so far. */
  def produced: Long = producedCount.get

  /** Tasks handled so far. */
  def consumed: Long = consumedCount.get

  /** Every event so far, for a watchdog: it grows while the run makes progress. */
  def events: Long = producedCount.get + consumedCount.get

object Progress:

  /** A fresh recorder at zero. */
  def create[F[_]: Sync](): F[Progress] = Sync[F].delay(new Progress())
