package weir.postgres

/** How [[SqlApplier]] applies files. Defaults ([[ApplySettings.default]]): each file in one
  * transaction, the splitter running 1 piece ahead ([[weir.stream.Prefetch]]; 0..4 measured alike,
  * README), up to 256 statements (or 64 KB of SQL) sent in one round trip inside a transaction,
  * COPY chunks of 64 KB.
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
    prefetch: Option[Int],
    pipeline: Int,
    maxChunk: Int
):
  def withTransactions(on: Boolean): ApplySettings = copy(transactions = on)

  /** `Left` when `n` is negative. */
  def withPrefetch(n: Option[Int]): Either[String, ApplySettings] =
    if n.exists(_ < 0) then Left(s"prefetch must be 0 or more, got ${n.get}")
    else Right(copy(prefetch = n))

  /** `Left` unless `n` is positive. */
  def withPipeline(n: Int): Either[String, ApplySettings] =
    if n < 1 then Left(s"pipeline must be 1 or more, got $n") else Right(copy(pipeline = n))

  /** `Left` unless `bytes` is at least 1 KB. */
  def withMaxChunk(bytes: Int): Either[String, ApplySettings] =
    if bytes < 1024 then Left(s"COPY chunks must be at least 1024 bytes, got $bytes")
    else Right(copy(maxChunk = bytes))

object ApplySettings:

  /** The largest group of statements handed to the driver's thread at once, in bytes of SQL. */
  val pipelineBytes: Int = 64 * 1024

  /** Statements handed to the driver's thread at once (at least): one thread hand-off per statement
    * cost ~120 µs each (200 000 INSERTs: 29 s against psql's 5.7 s, README).
    */
  val handOff: Int = 256

  val default: ApplySettings =
    ApplySettings(
      transactions = true,
      prefetch = Some(1),
      pipeline = 256,
      maxChunk = SqlSplitter.defaultMaxChunk
    )
