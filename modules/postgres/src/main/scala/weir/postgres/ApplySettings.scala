package weir.postgres

import weir.{Capacity, ConfigError}
import weir.stream.Prefetch

/** How [[SqlApplier]] applies files. Defaults ([[ApplySettings.default]]): each file in one
  * transaction, the splitter running 1 piece ahead ([[weir.stream.Prefetch]]; 0..4 measured alike,
  * README), up to 256 statements (or 64 KB of SQL) sent in one round trip inside a transaction,
  * COPY chunks of 256 KB.
  *
  * @param transactions
  *   each file in a transaction of its own (a failure leaves nothing of it applied); off, every
  *   statement commits on its own, one round trip each
  * @param prefetch
  *   how far the splitter runs ahead of the server (`Prefetch(n)`), or `None` for not at all
  * @param pipeline
  *   statements sent without waiting for each other's results, in a transaction (1: one round trip
  *   a statement, as psql does); statements go to the driver's thread in groups of at least
  *   [[ApplySettings.handOff]] either way
  * @param maxChunk
  *   the largest COPY chunk, in bytes
  */
final case class ApplySettings private (
    transactions: Boolean,
    prefetch: Option[Prefetch.Depth],
    pipeline: Capacity,
    maxChunk: Capacity
):

  /** Each file in a transaction of its own (`true`), or every statement committed on its own. */
  def withTransactions(on: Boolean): ApplySettings = copy(transactions = on)

  /** The splitter runs `n` pieces ahead of the server, or not at all (`None`). */
  def withPrefetch(n: Option[Prefetch.Depth]): ApplySettings = copy(prefetch = n)

  /** Up to `n` statements sent without waiting for each other's results, in a transaction. */
  def withPipeline(n: Capacity): ApplySettings = copy(pipeline = n)

  /** COPY chunks of `bytes` at most; `Left` unless at least 1 KB. */
  def withMaxChunk(bytes: Int): Either[ConfigError, ApplySettings] =
    if bytes < 1024 then
      Left(ConfigError.OutOfRange("COPY chunk size", s"$bytes bytes", "1024 bytes or more"))
    else Capacity.from(bytes, "COPY chunk size").map(c => copy(maxChunk = c))

object ApplySettings:

  /** The largest group of statements handed to the driver's thread at once, in bytes of SQL. */
  val pipelineBytes: Int = 64 * 1024

  /** Statements handed to the driver's thread at once (at least): one thread hand-off per statement
    * cost ~120 µs each (200 000 INSERTs: 29 s against psql's 5.7 s, README).
    */
  val handOff: Int = 256

  /** weir's defaults (see [[ApplySettings]]). */
  val default: ApplySettings =
    ApplySettings(
      transactions = true,
      prefetch = Some(Prefetch.Depth(1)),
      pipeline = Capacity(256),
      maxChunk = SqlSplitter.defaultMaxChunk
    )
