package weir.cli.applysql

import cats.data.ValidatedNel
import cats.syntax.all.*
import com.monovore.decline.Opts
import java.nio.file.{Files, Path, Paths}
import weir.Capacity
import weir.cli.common.{Args, Database, Output}
import weir.postgres.{
  ApplySettings,
  MigrationSettings,
  MigrationVersion,
  NotSqlText,
  PgTarget,
  SplitError
}
import weir.runtime.RuntimePreset
import weir.stream.Prefetch

/** The options of `weir apply-sql`, validated into an [[ApplySqlPlan]]; every error names its
  * option (exit 2). `env` is libpq's environment (`PGHOST`, `PGPORT`, `PGUSER`, `PGPASSWORD`,
  * `PGDATABASE`).
  */
object ApplySqlOptions:

  /** One compute thread: the splitter runs there while the driver call blocks on its own thread;
    * the work-stealing pool's idle workers spin for work on the cores the server needs (measured:
    * README, "weir apply-sql").
    */
  val defaultRuntime: RuntimePreset = RuntimePreset.Fixed(1)

  private val files = Opts.arguments[String]("FILE").orEmpty
  private val noTransaction = Opts
    .flag(
      "no-transaction",
      "Apply statement by statement, each committing on its own, for statements that cannot run in a transaction (CREATE DATABASE, VACUUM, CREATE INDEX CONCURRENTLY). A failure then leaves the statements before it applied. Default: each FILE in one transaction, so a failure leaves nothing of it."
    )
    .orFalse
  private val prefetch = Opts
    .option[String](
      "prefetch",
      s"Read and split up to N+1 pieces (statements, groups, 256 KB COPY chunks) ahead while the server applies the current one; off: read only when the server is done. Default: ${ApplySettings.default.prefetch.fold("off")(_.toString)} (measured: README, \"weir apply-sql\").",
      metavar = "N|off"
    )
    .withDefault(ApplySettings.default.prefetch.fold("off")(_.toString))
    .mapValidated { text =>
      if text.trim.equalsIgnoreCase("off") then None.validNel
      else
        text.trim.toIntOption.flatMap(Prefetch.Depth.from(_).toOption) match
          case Some(n) => Some(n).validNel
          case None    => s"--prefetch: '$text' is not a number >= 0 or off".invalidNel
    }
  private val pipeline = Opts
    .option[Int](
      "pipeline",
      s"In a transaction, send up to N statements (at most 64 KB of SQL) before waiting for their results: one round trip for N. 1: one round trip per statement, as psql. Default: ${ApplySettings.default.pipeline}.",
      metavar = "N"
    )
    .withDefault(ApplySettings.default.pipeline: Int)
    .mapValidated(n => Args.capacity("pipeline", n))
  private val migrations = Opts
    .options[String](
      "migrations",
      "Apply the migrations in DIR (repeat it for several directories, taken together as Flyway's locations) not applied yet, each in its own transaction (unless its first line is '-- weir: no-transaction'), recording each (name, SHA-256, time, duration) in weir.migrations. Flyway's names as they are: V<version>__<description>.sql in version order (1 < 1.1 < 2 < 10), then R__<description>.sql, applied again when they change, in subdirectories too (as Flyway reads them), with Flyway's SQL callbacks (beforeMigrate.sql, beforeEachMigrate.sql inside each migration's transaction, afterMigrate.sql, afterMigrateError.sql...) run where Flyway runs them; other *.sql names apply in name order. What Flyway applied (flyway_schema_history) is never run again. Refuses, before applying anything, when an applied file changed, two files have one version, a file is not UTF-8, a Flyway placeholder has no value (--placeholder), or a statement cannot run in its migration's transaction. An advisory lock keeps two runs from applying at once.",
      metavar = "DIR"
    )
    .orEmpty
    .map(_.toList)
  private val dryRun = Opts
    .flag(
      "dry-run",
      "With --migrations: print the statements that would be sent, file by file, and apply nothing."
    )
    .orFalse
  private val status = Opts
    .flag(
      "status",
      "With --migrations: print each migration's state (applied, pending, changed, missing, below-baseline), version, and when and by whom (weir or flyway) it was applied; apply nothing."
    )
    .orFalse
  private val baseline = Opts
    .option[String](
      "baseline",
      "With --migrations, on a database never migrated: record that every version up to VERSION is applied, without running them, then apply the later ones (Flyway's baseline).",
      metavar = "VERSION"
    )
    .orNone
    .mapValidated(
      _.traverse(v => MigrationVersion.parse(v).left.map(e => s"--baseline: $e").toValidatedNel)
    )
  private val flywayTable = Opts
    .option[String](
      "flyway-table",
      s"With --migrations: Flyway's history table to take over from, NAME or SCHEMA.NAME. Default: ${MigrationSettings.default.flywayTable} (through the search_path, where Flyway puts it).",
      metavar = "TABLE"
    )
    .orNone
    .mapValidated(
      _.traverse(t =>
        if t.matches("[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z_][A-Za-z0-9_]*)?") then t.validNel
        else
          s"--flyway-table: '$t' is not a table name: write NAME or SCHEMA.NAME (letters, digits, _)".invalidNel
      )
    )
  private val placeholders = Opts
    .options[String](
      "placeholder",
      "With --migrations of Flyway's names: ${NAME} in the files becomes VALUE, as Flyway's placeholders.NAME=VALUE does (names in any case; repeat for more). Flyway's built-in ones (${flyway:user}, ${flyway:database}, ${flyway:defaultSchema}, ${flyway:table}, ${flyway:filename}, ${flyway:timestamp}...) are replaced too; a placeholder with no value stops the run before anything is applied.",
      metavar = "NAME=VALUE"
    )
    .orEmpty
    .mapValidated(_.traverse { text =>
      text.split("=", 2) match
        case Array(name, value) if name.nonEmpty && !name.contains("}") => (name, value).validNel
        case _ =>
          s"--placeholder: '$text' is not NAME=VALUE: write e.g. --placeholder schema=app".invalidNel
    })
  private val noPlaceholders = Opts
    .flag(
      "no-placeholders",
      "With --migrations: send ${...} as it is, with no placeholder replaced (Flyway's placeholderReplacement=false). Default: replaced in a directory of Flyway's names."
    )
    .orFalse
  private val flywayConfig = Opts
    .option[String](
      "flyway-config",
      "Read a Flyway configuration file (flyway.conf; or Flyway 10's flyway.toml: its [flyway] table and the connection of its environment, flyway.environment or default, ${env.NAME} replaced) as Flyway's command line does, FLYWAY_URL, FLYWAY_USER, FLYWAY_PASSWORD and FLYWAY_LOCATIONS over it: flyway.url, user and password (unless --url or -h/-p/-U/-d are given), flyway.locations (filesystem: directories, taken together as Flyway takes them; --migrations wins), flyway.table and flyway.defaultSchema or schemas (the history table's schema, first in the search path while migrating, as Flyway runs them), flyway.placeholders.NAME and placeholderReplacement, flyway.baselineOnMigrate with baselineVersion. A setting weir would not follow as Flyway does is refused, naming it.",
      metavar = "FILE"
    )
    .orNone

  // The migration options as given; checked with the Flyway configuration (if any) in `migration`.
  private val migrationOpts =
    (
      migrations,
      dryRun,
      status,
      baseline,
      flywayTable,
      (placeholders, noPlaceholders).tupled
    ).tupled

  private type MigrationArgs = (
      List[String],
      Boolean,
      Boolean,
      Option[MigrationVersion],
      Option[String],
      (List[(String, String)], Boolean)
  )

  // The directory (if any), what to do with it and how, from the options over the configuration.
  private def migration(
      args: MigrationArgs,
      conf: Option[FlywayConfig]
  ): ValidatedNel[String, (List[String], ApplySqlPlan.MigrationMode, MigrationSettings)] =
    val (dirOptions, dry, st, base, table, (values, noReplace)) = args
    val dirs =
      if dirOptions.nonEmpty then dirOptions else conf.toList.flatMap(_.locations.map(_.toString))
    val needsDir = List(
      Option.when(dry)("--dry-run"),
      Option.when(st)("--status"),
      base.map(_ => "--baseline"),
      table.map(_ => "--flyway-table"),
      values.headOption.map(_ => "--placeholder"),
      Option.when(noReplace)("--no-placeholders")
    ).flatten
    if dirs.isEmpty && needsDir.nonEmpty then
      s"${needsDir.head} goes with --migrations DIR (or flyway.locations in --flyway-config)".invalidNel
    else if dry && st then "give --dry-run or --status, not both".invalidNel
    else if noReplace && values.nonEmpty then
      "give --placeholder or --no-placeholders, not both".invalidNel
    else
      val mode =
        if dry then ApplySqlPlan.MigrationMode.DryRun
        else if st then ApplySqlPlan.MigrationMode.Status
        else ApplySqlPlan.MigrationMode.Apply
      val settings = MigrationSettings.default.copy(
        flywayTable = table
          .orElse(conf.flatMap(_.historyTable))
          .getOrElse(MigrationSettings.default.flywayTable),
        baseline = base.orElse(conf.flatMap(_.baseline)),
        placeholders = conf.fold(Map.empty)(_.placeholders) ++ values.toMap,
        replacePlaceholders = !noReplace && conf.flatMap(_.replacePlaceholders).getOrElse(true)
      )
      (dirs, mode, settings).validNel

  // The database: the options', else the Flyway configuration's, else libpq's environment; with
  // the configuration's schema first in the search path.
  private def database(
      explicit: Option[PgTarget],
      conf: Option[FlywayConfig],
      env: Map[String, String]
  ): ValidatedNel[String, PgTarget] =
    val credentials =
      conf.toList.flatMap(c => c.user.map("PGUSER" -> _) ++ c.password.map("PGPASSWORD" -> _))
    val target = explicit.map(_.validNel).getOrElse {
      conf.flatMap(_.url) match
        case Some(url) =>
          Database.parse(Some(url), env ++ credentials, "--flyway-config: flyway.url")
        case None => Database.parse(None, env, "libpq's environment (PGHOST, PGPORT...)")
    }
    target.map(t =>
      conf.flatMap(_.schema).filter(_ != "public").fold(t)(s => t.withSearchPath(s"$s,public"))
    )

  private val output = Output.optsOf(List(Args.Format.Text, Args.Format.Json))
  private val noLive = Opts.flag("no-live", "No progress on stderr.").orFalse
  private val parallelCopy = Opts
    .option[Int](
      "parallel-copy",
      "Spread each COPY ... FROM STDIN body over N connections (chunks of whole lines to whichever is free). RUNS OUTSIDE A TRANSACTION: every statement commits on its own and each connection's COPY commits separately, so a failure leaves a partial load behind. Text-format COPYs only (CSV, BINARY and HEADER COPYs use one connection). Default: 1 (off).",
      metavar = "N"
    )
    .withDefault(1)
    .mapValidated(n => Args.positive("parallel-copy", n))

  /** The options, with `env` for the connection's defaults. */
  def opts(env: Map[String, String]): Opts[ApplySqlPlan] =
    (
      files,
      PsqlFlags.named(env),
      (noTransaction, prefetch, pipeline).tupled,
      migrationOpts,
      Args.runtime(ApplySqlOptions.defaultRuntime),
      output,
      noLive,
      parallelCopy,
      (
        PsqlFlags.files <* PsqlFlags.accepted <* PsqlFlags.refused,
        PsqlFlags.askPassword,
        flywayConfig,
        PsqlFlags.commands,
        PsqlFlags.singleTransaction,
        PsqlFlags.variables,
        PsqlFlags.quiet,
        PsqlFlags.echo
      ).tupled
    ).tupled.mapValidated {
      case (
            arguments,
            explicit,
            (noTx, ahead, batch),
            migrationArgs,
            runtime,
            fmt,
            quiet,
            connections,
            (psqlFiles, ask, confPath, commands, together, vars, hush, echo)
          ) =>
        val paths = psqlFiles ++ arguments
        val outside = noTx || connections > 1
        confPath.traverse(FlywayConfig.read(_, env)).andThen { conf =>
          migration(migrationArgs, conf).andThen { (dirs, mode, ms) =>
            (
              if commands.isEmpty then input(paths, dirs, mode, ms, noTx)
              else if paths.nonEmpty || dirs.nonEmpty then
                "give -c COMMAND or FILEs (and --migrations), not both: psql runs them in the order given, and weir does not keep that order; put the commands in a file among the others".invalidNel
              else ApplySqlPlan.Input.Commands(commands).validNel,
              database(explicit, conf, env),
              settings(noTx, connections, ahead, batch, vars ++ echo),
              if together && (outside || dirs.nonEmpty || commands.nonEmpty) then
                "-1 (all FILEs in one transaction) does not go with --no-transaction, --parallel-copy, --migrations or -c".invalidNel
              else if together && paths.size > 1 && paths.contains(StandardInput) then
                "-1 with standard input among several FILEs: apply standard input on its own, or write it to a file".invalidNel
              else ().validNel,
              if dirs.nonEmpty && vars.keySet.exists(_ != "ON_ERROR_STOP") then
                "-v NAME=VALUE does not go with --migrations: a migration's checksum would not cover the value; use --placeholder NAME=VALUE (Flyway's ${NAME})".invalidNel
              else ().validNel,
              if connections > 1 && dirs.nonEmpty then
                "--parallel-copy does not go with --migrations: migrations run in transactions".invalidNel
              else connections.validNel
            ).mapN((in, target, s, _, _, n) =>
              ApplySqlPlan(
                target = target,
                input = in,
                settings = s,
                connections = n,
                runtime = runtime,
                output = fmt,
                live = !quiet && !hush,
                askPassword = ask,
                quiet = hush,
                singleTransaction = together,
                createSchema = conf.filter(_.createSchema).flatMap(_.schema).filter(_ != "public")
              )
            )
          }
        }
    }

  private def settings(
      noTransaction: Boolean,
      connections: Int,
      prefetch: Option[Prefetch.Depth],
      pipeline: Capacity,
      variables: Map[String, String]
  ): ValidatedNel[String, ApplySettings] =
    // psql's ON_ERROR_STOP off: going on past a failed statement, where each commits on its own.
    val goOn = ApplySettings.onErrorStopOff(variables)
    if goOn && !noTransaction then
      "-v ON_ERROR_STOP=0 (go on past a failed statement) goes with --no-transaction only: in a file's transaction every statement after a failed one fails too (psql without -1 runs each statement on its own, as --no-transaction does)".invalidNel
    else if goOn && connections > 1 then
      "-v ON_ERROR_STOP=0 does not go with --parallel-copy: a COPY spread over connections stops at its first failure".invalidNel
    else
      ApplySettings.default
        .withTransactions(!(noTransaction || connections > 1))
        .withPrefetch(prefetch)
        .withPipeline(pipeline)
        .withStopAtError(!goOn)
        .withVariables(if goOn then variables - "ON_ERROR_STOP" else variables)
        .leftMap(e => s"-v ${e.getMessage}")
        .toValidatedNel

  private def input(
      paths: List[String],
      dirs: List[String],
      mode: ApplySqlPlan.MigrationMode,
      settings: MigrationSettings,
      noTransaction: Boolean
  ): ValidatedNel[String, ApplySqlPlan.Input] =
    (paths, dirs) match
      case (Nil, Nil) =>
        "FILE is missing: write e.g. weir apply-sql schema.sql data.sql, - for standard input (pg_dump db | weir apply-sql -), or weir apply-sql --migrations migrations/".invalidNel
      case (_ :: _, _ :: _) =>
        "give FILEs or --migrations DIR, not both".invalidNel
      case (_, _ :: _) if noTransaction =>
        "--no-transaction does not apply to --migrations: start a migration with the line '-- weir: no-transaction' instead".invalidNel
      case (Nil, all) =>
        all
          .traverse { d =>
            val path = Paths.get(d)
            if !Files.isDirectory(path) then s"--migrations: $d is not a directory".invalidNel
            else path.validNel
          }
          .map(ApplySqlPlan.Input.Migrations(_, mode, settings))
      case (files, Nil) if files.count(_ == StandardInput) > 1 =>
        "FILE - (standard input) is given twice: it can be read once".invalidNel
      case (files, Nil) => files.traverse(readable).map(ApplySqlPlan.Input.Files(_))

  // The FILE that names standard input, as psql's -f - does.
  private val StandardInput = "-"

  private def readable(name: String): ValidatedNel[String, Path] =
    val path = Paths.get(name)
    if name == StandardInput then ApplySqlPlan.StandardInput.validNel
    else if !Files.exists(path) then s"FILE $name: no such file".invalidNel
    else if Files.isDirectory(path) && Files.exists(path.resolve("toc.dat")) then
      val (what, instead) = NotSqlText.directoryArchive
      s"FILE ${SplitError.NotSql(name, what, instead).getMessage}".invalidNel
    else if Files.isDirectory(path) then
      s"FILE $name is a directory: give the .sql files in it, or --migrations $name".invalidNel
    else if !Files.isReadable(path) then s"FILE $name: not readable (permission denied)".invalidNel
    else path.validNel
