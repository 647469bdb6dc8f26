package weir.cli.applysql

import cats.syntax.all.*
import com.monovore.decline.{Opts, Visibility}
import weir.cli.common.Database
import weir.postgres.PgTarget

/** psql's own flags, so that a psql command line runs with `weir apply-sql` in psql's place: `psql
  * -X -1 -v ON_ERROR_STOP=1 -h HOST -p PORT -U USER -d DB -f FILE` is `weir apply-sql -X -1 -v
  * ON_ERROR_STOP=1 -h HOST -p PORT -U USER -d DB -f FILE`. The connection flags stand for libpq's
  * variables (`PGHOST`...) and win over them, as in psql; `-d` takes a URI too, as psql's does. `-f
  * FILE` (repeatable) comes before the FILE arguments. `-W` asks for the password on the terminal.
  * `-X`, `-w` and `-b` say what weir does anyway; `-q` is quiet. `-v NAME=VALUE` sets psql's
  * variables (`weir.postgres.ApplySettings.withVariables`).
  */
private[applysql] object PsqlFlags:

  private val connection = (
    Opts.option[String]("host", "psql's -h: the server's host (as PGHOST).", "h", "HOST").orNone,
    Opts.option[String]("port", "psql's -p: the server's port (as PGPORT).", "p", "PORT").orNone,
    Opts.option[String]("username", "psql's -U: the user (as PGUSER).", "U", "USER").orNone,
    Opts
      .option[String](
        "dbname",
        "psql's -d: the database (as PGDATABASE), or a postgresql:// URI as --url.",
        "d",
        "DBNAME"
      )
      .orNone
  ).tupled

  /** `-f FILE`s, in order. */
  val files: Opts[List[String]] = Opts
    .options[String](
      "file",
      "psql's -f: a FILE to apply (repeat for more), before the FILE arguments.",
      "f",
      "FILE"
    )
    .orEmpty
    .map(_.toList)

  /** psql's `-c COMMAND`s, in order. */
  val commands: Opts[List[String]] = Opts
    .options[String](
      "command",
      "psql's -c: SQL to apply (repeat for more, in order), each as a file named <command> in one transaction, unless it is one statement that cannot run in one (CREATE DATABASE, VACUUM), which runs alone as psql runs it. Results are not printed. Not with FILEs.",
      "c",
      "COMMAND"
    )
    .orEmpty
    .map(_.toList)

  /** psql's `-W`: ask for the password on the terminal before connecting. */
  val askPassword: Opts[Boolean] = Opts
    .flag(
      "password",
      "psql's -W: ask for the password on the terminal (not echoed) before connecting.",
      "W"
    )
    .orFalse

  /** psql's `-1`: every FILE in one transaction together. */
  val singleTransaction: Opts[Boolean] = Opts
    .flag(
      "single-transaction",
      "psql's -1: all the FILEs in one transaction, as psql -1 runs them, so that a failure in any leaves nothing of all of them (applied as one file named a.sql + b.sql). Without it, each FILE has a transaction of its own.",
      "1"
    )
    .orFalse

  /** psql's `-q`: no progress line, and no summary when everything applied. */
  val quiet: Opts[Boolean] = Opts
    .flag(
      "quiet",
      "psql's -q: no progress on stderr (as --no-live) and, when everything applied, no summary on stdout (warnings still on stderr, errors as ever). A --format other than text or a --report is still written.",
      "q"
    )
    .orFalse

  /** psql's `-X`, `-w` and `-b`: accepted, changing nothing. */
  val accepted: Opts[Unit] = (
    Opts.flag("no-psqlrc", "psql's -X: weir reads no ~/.psqlrc.", "X").orFalse,
    Opts
      .flag(
        "echo-errors",
        "psql's -b: weir always prints the statement that failed, with its file, line and column.",
        "b"
      )
      .orFalse,
    Opts
      .flag(
        "no-password",
        "psql's -w: weir never asks for a password unless -W (PGPASSWORD, ~/.pgpass or the URI give it).",
        "w"
      )
      .orFalse
  ).tupled.void

  /** psql's `-e` (`--echo-queries`) and `-a` (`--echo-all`): psql's `ECHO` variable, `queries` or
    * `all`, set before the first file: each statement is said as it is sent, or each line as it is
    * read.
    */
  val echo: Opts[Map[String, String]] =
    (
      Opts
        .flag(
          "echo-queries",
          "psql's -e: say each statement before it is sent (on stderr: stdout is weir's report), as psql's ECHO=queries; \\set ECHO none in a file stops it.",
          "e"
        )
        .orFalse,
      Opts
        .flag(
          "echo-all",
          "psql's -a: say every line as it is read, before the statements it ends are sent (not a COPY body's lines, nor empty ones), as psql's ECHO=all, on stderr; a \\gexec's generated statements too.",
          "a"
        )
        .orFalse
    ).mapN { (queries, all) =>
      if all then Map("ECHO" -> "all") else if queries then Map("ECHO" -> "queries") else Map.empty
    }

  /** psql's flags about how query results are printed: refused with the reason (weir prints no
    * results), where decline alone would say "Unexpected option".
    */
  val refused: Opts[Unit] =
    val flags = List(
      ("tuples-only", "t"),
      ("no-align", "A"),
      ("expanded", "x"),
      ("html", "H")
    ).traverse { (long, short) =>
      Opts
        .flag(long, s"psql's -$short: refused, weir prints no results.", short, Visibility.Partial)
        .orFalse
        .map(Option.when(_)(s"-$short"))
    }
    val options = List(
      ("output", "o"),
      ("pset", "P"),
      ("field-separator", "F"),
      ("record-separator", "R"),
      ("log-file", "L")
    ).traverse { (long, short) =>
      Opts
        .option[String](
          long,
          s"psql's -$short: refused, weir prints no results.",
          short,
          "VALUE",
          Visibility.Partial
        )
        .orNone
        .map(_.as(s"-$short"))
    }
    (flags, options).tupled.mapValidated { (f, o) =>
      (f ++ o).flatten.headOption.fold(().validNel[String]) { flag =>
        s"psql's $flag: weir apply-sql prints no query results (it applies files); drop $flag, or use psql where the output is wanted".invalidNel
      }
    }

  /** psql's `-v NAME=VALUE` (`--variable`, `--set`): the variables set before the first file, in
    * order (a `-v NAME` without `=` unsets one set before it, as psql's does).
    */
  val variables: Opts[Map[String, String]] =
    def settings(long: String, help: String, short: String) =
      Opts.options[String](long, help, short, "NAME=VALUE").orEmpty.map(_.toList)
    (
      settings(
        "variable",
        "psql's -v: set a psql variable (repeatable): :NAME in the files becomes VALUE, :'NAME' a quoted literal, :\"NAME\" a quoted identifier; \\set and \\unset in a file change it. ON_ERROR_STOP=1 is weir's behaviour anyway; ON_ERROR_STOP=0, with --no-transaction only, goes on past a failed statement as psql does, saying each (a COPY that fails is skipped with its body; exit 1 at the end: a pg_dumpall restore's CREATE ROLE of a role that exists); AUTOCOMMIT, ON_ERROR_ROLLBACK, SINGLELINE and SINGLESTEP are refused. Not with --migrations (use --placeholder).",
        "v"
      ),
      settings("set", "psql's --set: as -v.", "")
    ).tupled.map { (v, set) =>
      (v ++ set).foldLeft(Map.empty[String, String]) { (vars, setting) =>
        setting.split("=", 2) match
          case Array(name, value) => vars + (name -> value)
          case _                  => vars - setting
      }
    }

  /** The database `--url` or psql's `-h`, `-p`, `-U`, `-d` name (over libpq's environment `env`);
    * `None` when none of them is given.
    */
  def named(env: Map[String, String]): Opts[Option[PgTarget]] =
    (Database.url, connection).tupled.mapValidated { case (url, (host, port, user, db)) =>
      val uri = db.filter(d => d.startsWith("postgresql://") || d.startsWith("postgres://"))
      val variables = List(
        "PGHOST" -> host,
        "PGPORT" -> port,
        "PGUSER" -> user,
        "PGDATABASE" -> db.filter(_ => uri.isEmpty)
      ).collect { case (k, Some(v)) => k -> v }.toMap
      if url.isDefined && (variables.nonEmpty || uri.isDefined) then
        "give --url or psql's -h, -p, -U, -d, not both".invalidNel
      else if url.isDefined then Database.parse(url, env, "--url").map(Some(_))
      else if variables.isEmpty && uri.isEmpty then None.validNel
      else Database.parse(uri, env ++ variables, "-h/-p/-U/-d").map(Some(_))
    }
