package weir.cli.common

import cats.data.ValidatedNel
import cats.syntax.all.*
import com.monovore.decline.Opts
import scala.concurrent.duration.*
import weir.{Capacity, Concurrency, ConfigError, Durations}
import weir.cli.common.RuntimeSyntax.label
import weir.runtime.RuntimePreset

/** Option parsers shared by every command. Errors name the option and what it accepts. */
object Args:

  /** `--runtime wsp|fixed:N|virtual`, as every command takes it. */
  def runtime(default: RuntimePreset): Opts[RuntimePreset] =
    Opts
      .option[String](
        "runtime",
        s"Threads to run on: ${RuntimeSyntax.syntax}. wsp is cats-effect's work-stealing pool, fixed:N a pool of N threads, virtual a virtual thread per task (JDK 21+). Default: ${default.label}.",
        metavar = "RUNTIME"
      )
      .withDefault(default.label)
      .mapValidated(text =>
        RuntimeSyntax.parseRunnable(text).leftMap(msg => s"--runtime: $msg").toValidatedNel
      )

  /** `--runtime` for commands that compare runtimes: comma-separated or repeated, same syntax. */
  def runtimes(defaults: List[RuntimePreset]): Opts[List[RuntimePreset]] =
    list(
      "runtime",
      s"Runtimes to compare, comma-separated or repeated: ${RuntimeSyntax.syntax}. Default: ${defaults.map(_.label).mkString(",")}.",
      "RUNTIME"
    )
      .withDefault(Nil)
      .mapValidated { texts =>
        if texts.isEmpty then defaults.validNel
        else
          texts
            .traverse(text =>
              RuntimeSyntax.parse(text).leftMap(msg => s"--runtime: $msg").toValidatedNel
            )
            .map(_.distinct)
      }

  /** A positive integer option. */
  def positiveInt(long: String, help: String, default: Int, metavar: String = "N"): Opts[Int] =
    int(long, s"$help Default: $default.", metavar = metavar)
      .withDefault(default)
      .mapValidated(n => positive(long, n))

  /** A whole-number option whose bad values are named: `--requests: 'abc' is not a whole number`
    * (decline alone says only "Invalid integer: abc"). Underscores and commas group digits.
    */
  def long(long: String, help: String, short: String = "", metavar: String = "N"): Opts[Long] =
    Opts
      .option[String](long, help, short = short, metavar = metavar)
      .mapValidated(text => parseLong(long, text))

  /** [[long]] for an `Int`. */
  def int(long: String, help: String, short: String = "", metavar: String = "N"): Opts[Int] =
    Args.long(long, help, short, metavar).mapValidated { n =>
      if n.isValidInt then n.toInt.validNel
      else s"--$long: $n is too large (at most ${Int.MaxValue})".invalidNel
    }

  /** A number option (`0.5`, `1e-3`), named when bad. */
  def number(long: String, help: String, metavar: String = "X", short: String = ""): Opts[Double] =
    Opts
      .option[String](long, help, short, metavar)
      .mapValidated(text =>
        text.trim.toDoubleOption
          .filter(_.isFinite)
          .toValidNel(s"--$long: '$text' is not a number")
      )

  def parseLong(option: String, text: String): ValidatedNel[String, Long] =
    text.trim
      .replace("_", "")
      .replace(",", "")
      .toLongOption
      .toValidNel(s"--$option: '$text' is not a whole number")

  def positive(long: String, n: Int): ValidatedNel[String, Int] =
    if n > 0 then n.validNel else s"--$long must be a positive integer, got $n".invalidNel

  /** [[positive]] as a [[weir.Capacity]]. */
  def capacity(long: String, n: Int): ValidatedNel[String, Capacity] =
    Capacity.from(n).leftMap(_ => s"--$long must be a positive integer, got $n").toValidatedNel

  /** [[positive]] as a [[weir.Concurrency]]. */
  def concurrency(long: String, n: Int): ValidatedNel[String, Concurrency] =
    Concurrency.from(n).leftMap(_ => s"--$long must be a positive integer, got $n").toValidatedNel

  /** A duration as [[weir.Durations.parse]] reads it (`250ms`, `1.5s`, `2m`, `1h`, a bare number of
    * ms); the error names the option.
    */
  def parseDuration(option: String, text: String): ValidatedNel[String, FiniteDuration] =
    Durations.parse(text).leftMap(msg => s"--$option: $msg").toValidatedNel

  def duration(long: String, help: String, short: String = ""): Opts[FiniteDuration] =
    Opts.option[String](long, help, short, "DURATION").mapValidated(parseDuration(long, _))

  /** The library's refusal of a setting, in the CLI's words under `--option`: `--timeout: the
    * timeout must be positive, got 0`.
    */
  def worded(option: String, e: ConfigError): String = s"--$option: the ${e.getMessage}"

  /** [[worded]] on the `Left` of a library result. */
  def named[A](option: String, e: Either[ConfigError, A]): Either[String, A] =
    e.leftMap(worded(option, _))

  /** A comma-separated list option that may also be repeated. */
  def list(long: String, help: String, metavar: String): Opts[List[String]] =
    Opts
      .options[String](long, help, metavar = metavar)
      .orEmpty
      .map(_.flatMap(_.split(',')).map(_.trim).filter(_.nonEmpty))

  /** Output formats every reporting command offers. */
  enum Format:
    case Text, Markdown, Csv, Json

  object Format:
    val names: String = Format.values.map(_.toString.toLowerCase).mkString(" | ")

  def format: Opts[Format] =
    Opts
      .option[String](
        "format",
        s"Report format: ${Format.names}. Default: text.",
        metavar = "FORMAT"
      )
      .withDefault("text")
      .mapValidated { text =>
        Format.values
          .find(_.toString.equalsIgnoreCase(text.trim))
          .toValidNel(s"--format: '$text' is not one of: ${Format.names}")
      }
