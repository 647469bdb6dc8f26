package weir.lab.compare

import cats.effect.IO
import java.util.concurrent.atomic.LongAdder
import weir.Source
import weir.engine.Snapshot

/** Counts the batches and tasks a strategy takes from a source, as the engine's `run` does, for a
  * run on the engine's `runToEnd`, which does not count them (its snapshots say 0 batches and 0
  * taken). The counting is the engine's own: a tap on each chunk as it leaves its producer, with no
  * fiber and no buffer, so a strategy's timing is unchanged (`TakenCountSuite` checks it in virtual
  * time). [[into]] puts the counts into the engine's snapshots.
  *
  * To be removed once `runToEnd` counts what it takes itself.
  */
private[lab] final class TakenCount:
  private val tasks = new LongAdder
  private val chunks = new LongAdder

  /** `source` with every chunk counted as it is taken. */
  def count[A](source: Source[IO, A]): Source[IO, A] =
    Source
      .fromPartitions(source.partitions.map { partition =>
        partition.chunks.evalTap(c => IO { tasks.add(c.size.toLong); chunks.increment() }).unchunks
      })
      .fold(_ => source, identity)

  /** `snapshot` with the batches and tasks taken so far, and the tasks queued derived from them. */
  def into(snapshot: Snapshot): Snapshot =
    val taken = tasks.sum
    snapshot.copy(
      taken = taken,
      batches = chunks.sum,
      queued = math.max(0L, taken - snapshot.ended - snapshot.inFlight)
    )
