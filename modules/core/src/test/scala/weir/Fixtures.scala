package weir
import weir.strategy.Strategy

import cats.effect.IO
import fs2.Stream

/** Small sources for behaviour tests: tasks `0 until total` split among `producers` partitions, in
  * batches (chunks) of `batch`, produced without delay.
  */
object Fixtures:

  def source(total: Int, batch: Int, producers: Int): Source[IO, Int] =
    val partitions = (0 until producers).map { p =>
      val start = total * p / producers
      val end = total * (p + 1) / producers
      Stream.range(start, end).chunkN(batch).flatMap(Stream.chunk).covary[IO]
    }
    Source.fromPartitions(partitions).fold(throw _, identity)

  /** Every strategy of core; each completes on any runtime. (The lab runs the same suites on the
    * seed's strategies.)
    */
  val completing: List[Strategy] = Strategy.own

  /** Strategies that wait by suspending fibers, never by blocking threads: all of core's. */
  val fiberOnly: List[Strategy] = Strategy.own
