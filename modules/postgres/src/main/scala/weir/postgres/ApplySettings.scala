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
  * @param variables
  *   psql's variables set before the first file, as `psql -v NAME=VALUE` sets them
  *   ([[withVariables]])
  * @param stopAtError
  *   stop at the first statement that fails (psql's `ON_ERROR_STOP` on, the default); off, a file
  *   applied without a transaction goes on past a failed statement ([[withStopAtError]])
  */
final case class ApplySettings private (
    transactions: Boolean,
    prefetch: Option[Prefetch.Depth],
    pipeline: Capacity,
    maxChunk: Capacity,
    variables: Map[String, String],
    stopAtError: Boolean
):

  /** Each file in a transaction of its own (`true`), or every statement committed on its own. */
  def withTransactions(on: Boolean): ApplySettings = copy(transactions = on)

  /** Whether to stop at the first statement that fails (`true`, the default). With `false`, as
    * psql's `ON_ERROR_STOP` off (its default), a statement that fails in a file applied without a
    * transaction is said as it fails (in [[ApplyRecorder.echoed]]), its COPY body skipped, and the
    * apply goes on; psql's `ERROR`, `SQLSTATE`, `LAST_ERROR_MESSAGE` and `LAST_ERROR_SQLSTATE` say
    * so to the lines after it, and [[ApplyReport.failed]] counts the statements that failed. A file
    * applied in a transaction still stops at its first failure (the statements after it would fail
    * too); so do a lost connection and a failed `\connect`.
    */
  def withStopAtError(stop: Boolean): ApplySettings = copy(stopAtError = stop)

  /** The splitter runs `n` pieces ahead of the server, or not at all (`None`). */
  def withPrefetch(n: Option[Prefetch.Depth]): ApplySettings = copy(prefetch = n)

  /** Up to `n` statements sent without waiting for each other's results, in a transaction. */
  def withPipeline(n: Capacity): ApplySettings = copy(pipeline = n)

  /** COPY chunks of `bytes` at most; `Left` unless at least 1 KB. */
  def withMaxChunk(bytes: Int): Either[ConfigError, ApplySettings] =
    if bytes < 1024 then
      Left(ConfigError.OutOfRange("COPY chunk size", s"$bytes bytes", "1024 bytes or more"))
    else Capacity.from(bytes, "COPY chunk size").map(c => copy(maxChunk = c))

  /** psql's variables, set before the first file as `psql -v NAME=VALUE` sets them: `:NAME`,
    * `:'NAME'` and `:"NAME"` in statements are replaced by the value as it is, as a quoted literal
    * or as a quoted identifier, never inside quotes or comments; files change them with `\set` and
    * `\unset`, and a variable not set is left as written (docs/guide/postgres.md). `Left` for a
    * name that is not letters, digits and `_`, and for psql's variables that change how psql
    * applies (`AUTOCOMMIT`, `ON_ERROR_ROLLBACK`, `SINGLELINE`, `SINGLESTEP`, `ON_ERROR_STOP` off).
    */
  def withVariables(vars: Map[String, String]): Either[ConfigError, ApplySettings] =
    vars.toList
      .collectFirst(Function.unlift { (name, value) =>
        val why =
          if !PsqlVariables.validName(name) then Some("not a name (letters, digits and _)")
          else PsqlVariables.refused(name, value)
        why.map(ConfigError.Invalid(s"variable $name:", _))
      })
      .toLeft(copy(variables = vars))

object ApplySettings:

  /** The largest group of statements handed to the driver's thread at once, in bytes of SQL. */
  val pipelineBytes: Int = 64 * 1024

  /** Statements handed to the driver's thread at once (at least): one thread hand-off per statement
    * cost ~120 µs each (200 000 INSERTs: 29 s against psql's 5.7 s, README).
    */
  val handOff: Int = 256

  /** Whether `vars` turn psql's `ON_ERROR_STOP` off (`0`, `off`, `false`... as psql reads a
    * boolean): a command that reads psql's `-v` gives the apply [[ApplySettings.withStopAtError]]
    * `false` then, and the variables without it (which [[ApplySettings.withVariables]] refuses).
    */
  def onErrorStopOff(vars: Map[String, String]): Boolean =
    vars.get("ON_ERROR_STOP").flatMap(PsqlVariables.boolean).contains(false)

  /** weir's defaults (see [[ApplySettings]]). */
  val default: ApplySettings =
    ApplySettings(
      transactions = true,
      prefetch = Some(Prefetch.Depth(1)),
      pipeline = Capacity(256),
      maxChunk = SqlSplitter.defaultMaxChunk,
      variables = Map.empty,
      stopAtError = true
    )
