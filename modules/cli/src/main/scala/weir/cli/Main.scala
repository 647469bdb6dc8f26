package weir.cli

import cats.effect.{ExitCode, IO}
import com.monovore.decline.{Command, Help, Opts}
import weir.cli.applysql.ApplySqlCommand
import weir.cli.common.{BuildInfo, Console, Exit, Invocation}
import weir.cli.compare.CompareCommand
import weir.cli.load.LoadCommand
import weir.cli.queue.{EnqueueCommand, QueueCommand, WorkerCommand}
import weir.cli.runtimes.RuntimesCommand
import weir.cli.serve.ServeCommand

/** The `weir` command: parses the command line and runs one subcommand.
  *
  * Exit codes: 0 success, 1 the job ran but did not succeed (see each command), 2 bad input, 3 a
  * fatal error of the JVM (out of memory: see [[weir.cli.common.FatalExit]]), 130 interrupted.
  *
  * The process starts at [[Launcher]] (the watchdog, then [[run]] on cats-effect's runtime); tests
  * run [[run]] in their JVM.
  */
object Main:

  /** Every subcommand; each lives in its own file and only registers here. Commands whose reports
    * say how they were made take the [[Invocation]]; the others ignore it. Built on demand: a
    * command's options are objects whose first use loads and initializes hundreds of classes (with
    * no AOT cache, also their Scala lambdas' classes, made at run time), so a command line that
    * names one command builds only that one's ([[commandsFor]]).
    */
  private val all: List[(String, () => Opts[Invocation => IO[ExitCode]])] =
    def plain(opts: => Opts[IO[ExitCode]]) = () => opts.map(program => (_: Invocation) => program)
    List(
      "compare" -> (() => CompareCommand.opts),
      "runtimes" -> (() => RuntimesCommand.opts),
      "serve" -> plain(ServeCommand.opts),
      "load" -> (() => LoadCommand.opts),
      "apply-sql" -> (() => ApplySqlCommand.opts),
      "queue" -> plain(QueueCommand.opts),
      "enqueue" -> plain(EnqueueCommand.opts),
      "worker" -> plain(WorkerCommand.opts)
    )

  private def subcommands(only: Option[String]): Opts[Invocation => IO[ExitCode]] =
    val chosen = only.fold(all)(name => all.filter(_._1 == name))
    chosen.map(_._2()).reduce(_ orElse _)

  /** The one command `args` names when it is one of them (its options alone are built), else all
    * (`weir --help`, a misspelt command: the usage names every command).
    */
  private def commandsFor(args: List[String]): Option[String] =
    args.headOption.filter(name => all.exists(_._1 == name))

  private def weir(only: Option[String]) = Command(
    name = "weir",
    header = """weir: process many tasks concurrently on Cats Effect and fs2, measured.
      |
      |Run `weir COMMAND --help` for a command's options. Examples:
      |  weir compare                                  every strategy on the seed's three scenarios (~1 min)
      |  weir compare --full --repetitions 3           the seed's original timing
      |  weir compare --strategy real-blocking-queue   the seed's deadlock, detected
      |  weir compare --report compare.html            the same table, and a page with charts to open in a browser
      |  weir runtimes                                 work-stealing vs fixed vs virtual threads under blocking bursts
      |  weir serve --delay 0..3s                      the delay server on 127.0.0.1:8000
      |  weir load 'http://127.0.0.1:8000/{id}' -n 100000 -c 1000   launch requests at a concurrency bound
      |  weir apply-sql dump.sql --url postgresql://me@localhost/db  stream SQL files into PostgreSQL
      |  weir queue init && weir enqueue --ids 0..1000     a durable queue on PostgreSQL
      |  weir worker --http 'http://127.0.0.1:8000/{payload}'   drain it on many machines""".stripMargin
  )(version orElse subcommands(only))

  /** `weir --version`: the version and the commit the build was made from, on stdout. */
  private val version: Opts[Invocation => IO[ExitCode]] =
    Opts
      .flag("version", "Print weir's version and the commit it was built from, then exit.")
      .map(_ =>
        (_: Invocation) =>
          IO.println(s"weir ${BuildInfo.version} (commit ${BuildInfo.commit})").as(ExitCode.Success)
      )

  def run(args: List[String]): IO[ExitCode] =
    weir(commandsFor(args)).parse(args, sys.env) match
      // A failure no command caught is still a message, never a stack trace.
      case Right(program) =>
        program(Invocation(args)).handleErrorWith(e =>
          Console
            .error(s"weir: ${Option(e.getMessage).getOrElse(e.getClass.getName)}")
            .as(Exit.Failed)
        )
      case Left(help) if help.errors.isEmpty => IO.println(help.toString).as(ExitCode.Success)
      case Left(help)                        => Console.error(helpText(help)).as(Exit.BadInput)

  /** The errors, the usage line and where to read more; the full help only on --help. A command
    * made of subcommands (`weir`, `weir queue`) names them all, not its first one's usage.
    */
  private def helpText(help: Help): String =
    val command = help.prefix.toList.mkString(" ")
    val usage = help.usage match
      case Nil       => s"Usage: $command"
      case List(one) => s"Usage: $command $one"
      case many =>
        val names = many.map(_.takeWhile(_ != ' ')).filterNot(_.startsWith("-")).distinct
        s"Usage: $command COMMAND [OPTIONS], COMMAND one of: ${names.mkString(", ")}"
    (help.errors ++ List("", usage, s"Run '$command --help' for every option.")).mkString("\n")
