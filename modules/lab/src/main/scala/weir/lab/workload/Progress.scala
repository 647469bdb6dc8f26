package weir.lab.workload

import cats.effect.Sync
import java.util.concurrent.atomic.AtomicLong

/** Counts what a run has produced and handled, and keeps the seed's lane of events: a `P` for every
  * batch produced and a `C` for every `consumeMark`-th task handled.
  *
  * Safe to update from any number of fibers and threads at once (atomics and a synchronized buffer;
  * updates are a few per task, far below any handler's cost). Readers see a consistent count of
  * each counter, not a single snapshot of all.
  */
final class Progress private (consumeMark: Int):
  private val producedCount = new AtomicLong
  private val consumedCount = new AtomicLong
  private val laneBuffer = new java.lang.StringBuffer

  /** Records a batch of `size` tasks produced. */
  def batchProduced[F[_]: Sync](size: Int): F[Unit] = Sync[F].delay {
    producedCount.addAndGet(size.toLong)
    laneBuffer.append('P')
    ()
  }

  /** Records one task handled. */
  def taskConsumed[F[_]: Sync]: F[Unit] = Sync[F].delay {
    if consumedCount.incrementAndGet() % consumeMark == 0 then laneBuffer.append('C'): Unit
  }

  /** Tasks produced so far. */
  def produced: Long = producedCount.get

  /** Tasks handled so far. */
  def consumed: Long = consumedCount.get

  /** Every event so far, for a watchdog: it grows while the run makes progress. */
  def events: Long = producedCount.get + consumedCount.get

  /** The lane of `P` and `C` events so far, oldest first. */
  def lane: String = laneBuffer.toString

object Progress:

  /** The seed printed a `C` for every 15th task handled. */
  val seedConsumeMark: Int = 15

  /** A fresh recorder that marks every `consumeMark`-th handled task in its lane. */
  def create[F[_]: Sync](consumeMark: Int = seedConsumeMark): F[Progress] =
    Sync[F].delay(new Progress(math.max(1, consumeMark)))
