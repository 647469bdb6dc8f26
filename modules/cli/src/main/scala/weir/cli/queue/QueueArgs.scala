package weir.cli.queue

import cats.data.{NonEmptyList, ValidatedNel}
import cats.effect.IO
import cats.syntax.all.*
import com.monovore.decline.Opts
import weir.cli.common.{Args, Console, Database, Exit}
import weir.postgres.{PgSession, PgTarget}
import weir.postgres.queue.{NewJob, QueueError, QueueSchema, QueueSchemaName}
import cats.effect.ExitCode

/** The options and checks the queue's commands share: the database, the queue's name, and a clear
  * message (exit 2) when the database cannot be reached or has no queue yet.
  */
object QueueArgs:

  /** `--url`, else libpq's environment (as `weir apply-sql` reads it). */
  def target(env: Map[String, String]): Opts[PgTarget] = Database.target(env)

  /** `--schema NAME`, default `weir`: the PostgreSQL schema the queue lives in. */
  val schema: Opts[QueueSchemaName] = Opts
    .option[String](
      "schema",
      "The PostgreSQL schema the queue lives in: its tables, its functions (NAME.enqueue), its migrations' record (NAME.migrations) and its notification channel. Two schemas of one database hold two queues that share nothing. A plain lowercase identifier, e.g. jobs or billing_queue. Default: weir.",
      metavar = "NAME"
    )
    .withDefault(QueueSchemaName.default.name)
    .mapValidated(name =>
      QueueSchemaName.from(name.trim).leftMap(e => s"--schema: the ${e.getMessage}").toValidatedNel
    )

  /** `--queue NAME`, default `default`. */
  val queue: Opts[String] = Opts
    .option[String]("queue", "The queue's name. Default: default.", short = "q", metavar = "NAME")
    .withDefault("default")
    .mapValidated(q =>
      if q.trim.isEmpty then "--queue must not be empty".invalidNel else q.trim.validNel
    )

  /** `--queue NAME`, given any number of times or as a comma list (`--queue mail,sms`): the queues
    * a worker serves, in that order; default `default`. An empty name or a queue given twice is an
    * error naming the option.
    */
  val queues: Opts[NonEmptyList[String]] = Opts
    .options[String](
      "queue",
      "The queue to serve. Give it several times, or a comma list (--queue mail,sms), to serve several queues from this one process, on the same four connections, claiming from each in turn. Default: default.",
      short = "q",
      metavar = "NAME"
    )
    .withDefault(NonEmptyList.one("default"))
    .mapValidated(parseQueues)

  /** The queue names in `options` (each a name or a comma list), trimmed; errors name `--queue`. */
  def parseQueues(options: NonEmptyList[String]): ValidatedNel[String, NonEmptyList[String]] =
    val names = options.toList.flatMap(_.split(",", -1).map(_.trim))
    val twice = names.diff(names.distinct).distinct
    if names.exists(_.isEmpty) then
      s"--queue: an empty queue name in '${options.toList.mkString(" ")}': give names, e.g. --queue mail --queue sms or --queue mail,sms".invalidNel
    else if twice.nonEmpty then
      s"--queue: ${twice.mkString("'", "', '", "'")} given more than once: name each queue once".invalidNel
    else NonEmptyList.fromListUnsafe(names).validNel

  /** `--queue NAME`, or every queue. */
  val someQueue: Opts[Option[String]] = Opts
    .option[String](
      "queue",
      "Only this queue. Default: every queue.",
      short = "q",
      metavar = "NAME"
    )
    .orNone

  /** `--kind KIND`, default `default`: the kind of the jobs a command enqueues. */
  val kind: Opts[String] =
    Opts
      .option[String](
        "kind",
        "The kind of each job (what its payload is; a worker's handlers are chosen by it). Default: default.",
        metavar = "KIND"
      )
      .withDefault(NewJob.defaultKind)
      .mapValidated(k =>
        if k.trim.isEmpty then
          "--kind must not be empty: give the kind of job its handlers know, e.g. --kind report".invalidNel
        else k.trim.validNel
      )

  /** text | json. */
  val json: Opts[Boolean] = Opts
    .option[String]("format", "Summary on stdout: text | json. Default: text.", metavar = "FORMAT")
    .withDefault("text")
    .mapValidated {
      case t if t.equalsIgnoreCase("text") => false.validNel
      case t if t.equalsIgnoreCase("json") => true.validNel
      case other => s"--format: '$other' is not one of: text | json".invalidNel
    }

  val noLive: Opts[Boolean] = Opts.flag("no-live", "No live progress on stderr.").orFalse

  /** Runs `program` with a session on `target` after checking that the queue's schema is there and
    * up to date; a connection that cannot be made, a database without the queue, or one whose queue
    * lacks a migration of this version, is a message and exit 2.
    */
  def connected(command: String, target: PgTarget, schema: QueueSchemaName)(
      program: PgSession[IO] => IO[ExitCode]
  ): IO[ExitCode] =
    PgSession
      .open[IO](target, s"weir $command")
      .attempt
      .use {
        case Left(e) => failed(command, e).as(Exit.BadInput)
        case Right(session) =>
          QueueSchema.check(session, schema).flatMap {
            case Right(()) => program(session)
            case Left(error) =>
              Console.error(s"weir $command: ${schemaMessage(error, schema)}").as(Exit.BadInput)
          }
      }

  // A missing or outdated queue in the command's words: with the command that fixes it.
  private def schemaMessage(error: QueueError, schema: QueueSchemaName): String =
    val init =
      if schema == QueueSchemaName.default then "weir queue init"
      else s"weir queue init --schema $schema"
    error match
      case QueueError.NoQueue(target, _) =>
        s"$target has no queue yet (no table $schema.jobs): run $init first"
      case QueueError.MissingMigrations(target, missing) =>
        s"the queue on $target lacks migration(s) ${missing.mkString(", ")} of this version of weir: run $init (with the same --url) to apply them, once, then start again"
      case other => other.getMessage

  /** Prints `e` as one line, never a stack trace. */
  def failed(command: String, e: Throwable): IO[Unit] =
    Console.error(s"weir $command: ${Option(e.getMessage).getOrElse(e.getClass.getName)}")

  /** A positive count option. */
  def positive(long: String, help: String, default: Int): Opts[Int] =
    Args.positiveInt(long, help, default)
