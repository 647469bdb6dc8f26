package weir.cli

import cats.effect.{ExitCode, IO, IOApp}
import com.monovore.decline.{Command, Help, Opts}

/** The `weir` command: parses the command line and runs one subcommand.
  *
  * Exit codes: 0 success, 1 the job ran but did not succeed (see each command), 2 bad input,
  * 130 interrupted.
  */
object Main extends IOApp:

  /** Every subcommand; each lives in its own file and only registers here. */
  private val subcommands: Opts[IO[ExitCode]] =
    List(CompareCommand.opts, ServeCommand.opts, LoadCommand.opts).reduce(_ orElse _)

  private val weir = Command(
    name = "weir",
    header = "weir: process many tasks concurrently on Cats Effect and fs2, measured.",
  )(subcommands)

  def run(args: List[String]): IO[ExitCode] =
    weir.parse(args, sys.env) match
      case Right(program) => program
      case Left(help) if help.errors.isEmpty => IO.println(help.toString).as(ExitCode.Success)
      case Left(help) => Console.error(helpText(help)).as(Exit.BadInput)

  private def helpText(help: Help): String = help.toString
