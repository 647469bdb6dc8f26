package weir.lab.workload

import cats.effect.Async
import cats.syntax.all.*
import fs2.{Chunk, Stream}
import scala.concurrent.duration.*
import weir.{Limits, Source}
import weir.lab.workload.Progress
import weir.ConfigError

/** The seed's synthetic workload: `total` integer tasks split evenly among `producers` partitions;
  * a producer sleeps `produceDelay` once per batch of `batchSize` and yields the batch as one chunk
  * (lazily: the next sleep starts only when the batch is pulled); handling a task sleeps a time
  * drawn uniformly from `[consumeMin, consumeMax)`, a pure function of the run's seed and the task
  * ([[SeededRandom.between]]), so the draws do not depend on the order handlers start in.
  *
  * Build it with [[Scenario.of]], which validates every field.
  */
final case class Scenario private (
    name: String,
    produceDelay: FiniteDuration,
    consumeMin: FiniteDuration,
    consumeMax: FiniteDuration,
    batchSize: Int,
    total: Int,
    producers: Int
):

  /** The same scenario with every delay multiplied by `factor` (0.1 runs ten times faster). */
  def scaled(factor: Double): Scenario =
    def scale(d: FiniteDuration) = (d.toNanos * factor).round.nanos
    copy(
      produceDelay = scale(produceDelay),
      consumeMin = scale(consumeMin),
      consumeMax = scale(consumeMax)
    )

  /** The mean handling time. */
  def meanConsume: FiniteDuration = ((consumeMin.toNanos + consumeMax.toNanos) / 2).nanos

  /** The longest a healthy run can go without producing or handling anything. */
  def longestQuietGap: FiniteDuration = produceDelay.max(consumeMax)

  /** A time no strategy can beat with `limits` and this scenario's producers: the last batch of the
    * busiest producer must be produced and then handled, and all handling must fit into
    * `limits.concurrency` slots after the first batch arrives.
    */
  def lowerBound(limits: Limits): FiniteDuration =
    val perProducer = math.ceil(total.toDouble / producers).toInt
    val batches = math.ceil(perProducer.toDouble / batchSize).toLong
    val producing = produceDelay * batches + consumeMin
    val handling =
      produceDelay + meanConsume * total.toLong / math.min(limits.concurrency, total).toLong
    producing.max(handling)

  /** The source and handler of one run; `seed` decides the handling times, `progress` records every
    * batch and task.
    */
  def workload[F[_]: Async](seed: Long, progress: Progress): Workload[F, Int] =
    val minNanos = consumeMin.toNanos
    val maxNanos = consumeMax.toNanos
    def partition(index: Int): Stream[F, Int] =
      val start = (total.toLong * index / producers).toInt
      val end = (total.toLong * (index + 1) / producers).toInt
      Stream.range(start, end, batchSize).flatMap { from =>
        val to = math.min(from + batchSize, end)
        Stream.exec(Async[F].sleep(produceDelay) >> progress.batchProduced[F](to - from)) ++
          Stream.chunk(Chunk.from(from until to))
      }
    val handle: Int => F[Unit] = task =>
      Async[F].sleep(SeededRandom.between(seed, task.toLong, minNanos, maxNanos).nanos) >>
        progress.taskConsumed[F]
    Workload(Source.partitioned(partition(0), (1 until producers).map(partition)*), handle)

object Scenario:
  private val seedBatch = 100
  private val seedTotal = 1000
  private val seedProducers = 2

  /** The seed's slow producer: 1000 ms a batch, handling 10..100 ms. */
  val slowProducer: Scenario =
    new Scenario(
      "slow-producer",
      1000.millis,
      10.millis,
      100.millis,
      seedBatch,
      seedTotal,
      seedProducers
    )

  /** The seed's balanced case: 1005 ms a batch, handling 10..2000 ms. */
  val balanced: Scenario =
    new Scenario(
      "balanced",
      1005.millis,
      10.millis,
      2000.millis,
      seedBatch,
      seedTotal,
      seedProducers
    )

  /** The seed's slow consumer: 10 ms a batch, handling 10..1000 ms. */
  val slowConsumer: Scenario =
    new Scenario(
      "slow-consumer",
      10.millis,
      10.millis,
      1000.millis,
      seedBatch,
      seedTotal,
      seedProducers
    )

  /** The three scenarios of the seed, in its order. */
  val seed: List[Scenario] = List(slowProducer, balanced, slowConsumer)

  /** A validated scenario; `Left(ConfigError)` names the first field that is wrong and why. */
  def of(
      name: String,
      produceDelay: FiniteDuration,
      consumeMin: FiniteDuration,
      consumeMax: FiniteDuration,
      batchSize: Int = seedBatch,
      total: Int = seedTotal,
      producers: Int = seedProducers
  ): Either[ConfigError, Scenario] =
    if produceDelay < Duration.Zero then
      Left(ConfigError.Negative("produce delay", produceDelay.toString))
    else if consumeMin < Duration.Zero then
      Left(ConfigError.Negative("consume minimum", consumeMin.toString))
    else if consumeMin > consumeMax then
      Left(
        ConfigError
          .Invalid("consume minimum", s"($consumeMin) must not exceed the maximum ($consumeMax)")
      )
    else if batchSize <= 0 then Left(ConfigError.NotPositive("batch size", batchSize.toString))
    else if total <= 0 then Left(ConfigError.NotPositive("total", total.toString))
    else if producers <= 0 then Left(ConfigError.NotPositive("producers", producers.toString))
    else if producers > total then
      Left(ConfigError.Invalid("producers", s"($producers) must not exceed total ($total)"))
    else
      Right(new Scenario(name, produceDelay, consumeMin, consumeMax, batchSize, total, producers))
