package weir.cli.applysql

import cats.effect.IO
import com.monovore.decline.Command
import java.nio.file.{Files, Path}
import munit.CatsEffectSuite
import weir.postgres.{PgSession, PgTarget, TempPaths}

/** What the `weir apply-sql` suites share: the command parsed from its options (against a libpq
  * environment of their own), files in a fresh directory, the command run against a real server,
  * the error a report carries, and one value read back.
  */
trait ApplySqlFixtures extends TempPaths.Cleanup:
  self: CatsEffectSuite =>

  protected val env = Map("PGHOST" -> "db.example", "PGPORT" -> "6543", "PGUSER" -> "me")
  protected def command(env: Map[String, String]) =
    Command("apply-sql", "")(ApplySqlOptions.opts(env))

  protected def errors(args: String*): List[String] =
    command(env).parse(args.toList).fold(_.errors, _ => Nil)

  protected def plan(args: String*): ApplySqlPlan =
    command(env).parse(args.toList).fold(h => fail(h.errors.mkString("; ")), identity)

  protected def dir(files: (String, String)*): Path =
    val d = tempPaths.directory("weir-cli-")
    files.foreach((name, text) => Files.writeString(d.resolve(name), text))
    d

  protected def run(target: PgTarget, args: String*): IO[(Int, ApplySqlReport)] =
    val withUrl = args.toList ++ List("--url", target.show.replace(":***@", "@"), "--no-live")
    val p = command(Map.empty).parse(withUrl).fold(h => fail(h.errors.mkString("; ")), identity)
    ApplySqlCommand.execute(p.copy(target = target)).map(r => (r.exitCode, r))

  /** The error a report carries, as the command prints it. */
  protected def message(report: ApplySqlReport): String = report match
    case ApplySqlReport.Applied(r, _, _, _) =>
      r.outcome match
        case weir.postgres.ApplyReport.Outcome.Failed(e) => e.getMessage
        case other                                       => other.toString
    case ApplySqlReport.Refused(e) => e.getMessage
    case other                     => other.toString

  protected def scalar(target: PgTarget, sql: String): IO[Option[String]] =
    PgSession.open[IO](target).use(_.query(sql)).map(_.headOption.flatMap(_.head))
