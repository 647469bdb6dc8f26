package weir.cli.common

import cats.data.ValidatedNel
import cats.effect.IO
import cats.syntax.all.*
import com.monovore.decline.Opts
import java.nio.file.{Files, Path}
import weir.FileProblem

/** Where a reporting command's report goes: stdout in one format (`--format`), and an HTML report
  * in a file beside it (`--report FILE.html`), or both.
  *
  * @param stdout
  *   what stdout gets
  * @param htmlFile
  *   where the HTML report is also written, if anywhere
  */
final case class Output(stdout: Output.Stdout, htmlFile: Option[Path]):

  /** Prints the report on stdout in the chosen format, then writes the HTML page to the file if one
    * was asked for, and says on stderr where it went or why it could not (stdout has its report by
    * then). The page is made at most once, with this run's [[Provenance]] (now, this JVM,
    * `invocation`); `plain` and `html` are only called when needed. False when the file could not
    * be written: the command exits 1.
    */
  def emit(
      command: String,
      invocation: Invocation,
      plain: Args.Format => String,
      html: Provenance => String
  ): IO[Boolean] =
    Provenance.current(invocation).flatMap { provenance =>
      lazy val page = html(provenance)
      val printed = stdout match
        case Output.Stdout.Plain(format) => Console.out(plain(format))
        case Output.Stdout.Html          => Console.out(page)
      printed >> htmlFile.fold(IO.pure(true)) { path =>
        Output.write(path, page).flatMap {
          case Right(())   => Console.error(s"$command: HTML report written to $path").as(true)
          case Left(error) => Console.error(s"$command: --report: $error").as(false)
        }
      }
    }

object Output:

  /** What goes to stdout. */
  enum Stdout:
    /** A table in one of the plain formats. */
    case Plain(format: Args.Format)

    /** The HTML report itself. */
    case Html

  /** `--format text|markdown|csv|json|html` (default text) and `--report FILE.html`. A report file
    * whose directory is missing or not writable is refused here, before anything runs.
    */
  val opts: Opts[Output] = optsOf(Args.Format.values.toList)

  /** [[opts]] for a command whose stdout report comes in `plain` formats only (and html). */
  def optsOf(plain: List[Args.Format]): Opts[Output] =
    val formats = (plain.map(_.toString.toLowerCase) :+ "html").mkString(" | ")
    val format = Opts
      .option[String](
        "format",
        s"Report format on stdout: $formats. html is one self-contained page (charts, the JSON data, how it was made); open it in a browser. Default: text.",
        metavar = "FORMAT"
      )
      .withDefault("text")
      .mapValidated(parseFormat(plain, formats))
    val report = Opts
      .option[Path](
        "report",
        "Also write the HTML report to this file (stdout keeps --format).",
        metavar = "FILE.html"
      )
      .mapValidated(writable)
      .orNone
    (format, report).mapN(Output(_, _))

  private def parseFormat(plain: List[Args.Format], formats: String)(
      text: String
  ): ValidatedNel[String, Stdout] =
    if text.trim.equalsIgnoreCase("html") then Stdout.Html.validNel
    else
      plain
        .find(_.toString.equalsIgnoreCase(text.trim))
        .map(Stdout.Plain(_))
        .toValidNel(s"--format: '$text' is not one of: $formats")

  /** `path` when a file can be written there; else what stands in the way. */
  def writable(path: Path): ValidatedNel[String, Path] =
    val absolute = path.toAbsolutePath.normalize
    val dir = Option(absolute.getParent)
    if Files.isDirectory(absolute) then
      s"--report: $path is a directory; give a file name".invalidNel
    else if Files.exists(absolute) && !Files.isWritable(absolute) then
      s"--report: cannot write $path: the file is not writable".invalidNel
    else
      dir match
        case Some(d) if !Files.isDirectory(d) =>
          s"--report: cannot write $path: directory $d does not exist".invalidNel
        case Some(d) if !Files.exists(absolute) && !Files.isWritable(d) =>
          s"--report: cannot write $path: directory $d is not writable".invalidNel
        case _ => path.validNel

  /** Writes `text` to `path` (UTF-8); `Left` says why it could not. */
  def write(path: Path, text: String): IO[Either[String, Unit]] =
    IO.blocking(Files.writeString(path, text))
      .void
      .attempt
      .map(_.leftMap(e => s"cannot write $path: ${FileProblem.describe(e)}"))
