package weir.lab.compare

import scala.concurrent.duration.*

/** The seed's published results (ms, rounded), by scenario and strategy name. They were measured on
  * the seed author's machine with fs2 2.5 on a 2-thread pool; see
  * `shared/reference/seed-experiments.md` §1.
  */
object Published:

  private val table: Map[(String, String), Long] = Map(
    ("slow-producer", "batch-io") -> 11086L,
    ("balanced", "batch-io") -> 29912L,
    ("slow-consumer", "batch-io") -> 10016L,
    ("slow-producer", "blocking-queue") -> 10190L,
    ("balanced", "blocking-queue") -> 14195L,
    ("slow-consumer", "blocking-queue") -> 6495L,
    ("slow-producer", "stream-queue") -> 10138L,
    ("balanced", "stream-queue") -> 14458L,
    ("slow-consumer", "stream-queue") -> 6418L,
    ("slow-producer", "stream") -> 10356L,
    ("balanced", "stream") -> 15656L,
    ("slow-consumer", "stream") -> 6560L,
    ("slow-producer", "prefetch-stream") -> 10141L,
    ("balanced", "prefetch-stream") -> 14578L,
    ("slow-consumer", "prefetch-stream") -> 6377L,
    ("slow-producer", "concurrent-producer-queue") -> 5187L,
    ("balanced", "concurrent-producer-queue") -> 14395L,
    ("slow-consumer", "concurrent-producer-queue") -> 6577L,
    ("slow-producer", "concurrent-producer") -> 5199L,
    ("balanced", "concurrent-producer") -> 14544L,
    ("slow-consumer", "concurrent-producer") -> 6418L
  )

  /** The seed's time for `strategy` on `scenario`, at the seed's timing. */
  def figure(scenario: String, strategy: String): Option[FiniteDuration] =
    table.get((scenario, strategy)).map(_.millis)
