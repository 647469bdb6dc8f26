package weir.cli.queue

import cats.effect.{ExitCode, IO}
import cats.effect.std.Random
import cats.syntax.all.*
import com.monovore.decline.Opts
import java.nio.file.Files
import scala.concurrent.duration.*
import weir.Attempts
import weir.cli.common.{Args, Console, Exit, Interrupts}
import weir.postgres.{ApplyReport, PgSession, PgTarget}
import weir.postgres.queue.{Enqueue, NewJob, QueueSchema}

/** What `weir queue torture` will do. */
final case class TorturePlan(
    target: PgTarget,
    workers: Int,
    jobs: Int,
    kills: Int,
    concurrency: Int,
    lease: FiniteDuration,
    work: String,
    limit: FiniteDuration,
    seed: Long,
    json: Boolean,
    cancels: Int = 0
)

/** `weir queue torture`: the crash test, run against the user's own PostgreSQL. `--workers` real
  * `weir worker` processes drain `--jobs` jobs of three kinds in a queue of its own, and the jobs
  * of a schedule on it ([[TortureMix]]), while it SIGKILLs one, `--kills` times, each kill aimed in
  * turn at a worker claiming, handling or completing (as the server shows it: [[TortureAim]]),
  * starting a new one after each; once in the run it SIGSTOPs one for twice the lease, so that its
  * jobs are delivered again under it, then SIGCONTs it; beside the kills it cancels `--cancels`
  * running jobs. When every job has completed or been cancelled (or `--limit` has passed) it stops
  * the workers and checks, in the database ([[Torture]]), over the whole run and over the jobs held
  * at each phase's kills: no job lost (each kind's jobs completed or cancelled, the cancelled ones
  * exactly those it cancelled); each period of the schedule, from the first to the last, one job:
  * none skipped, none doubled; every completion under the job's current attempt, an attempt that
  * really ran; duplicate runs no more than the jobs the killed and paused workers held; and the
  * recovery time after each kill. Exit 0 when every invariant holds, 1 otherwise, 2 bad input or no
  * database, 130 interrupted: the first Ctrl-C stops the kills and the workers (gracefully: they
  * release what they hold) and prints what was reached; the second kills the workers at once.
  */
object TortureCommand:

  private[queue] def planOpts(env: Map[String, String]): Opts[TorturePlan] =
    (
      QueueArgs.target(env),
      Args.positiveInt("workers", "Worker processes at a time.", 3),
      Args.positiveInt("jobs", "Jobs to drain.", 20000),
      Args.int("kills", "SIGKILLs during the run. Default: 10.").withDefault(10),
      Args.positiveInt("concurrency", "Jobs in flight per worker.", 8),
      Args
        .duration(
          "lease",
          "The workers' lease: a killed worker's jobs return after it. Default: 2s."
        )
        .withDefault(2.seconds),
      Opts
        .option[String](
          "work",
          "Each job's handler: a --sleep DIST. Default: 0..4ms.",
          metavar = "DIST"
        )
        .withDefault("0..4ms"),
      Args
        .duration("limit", "Give up (and fail) after this long. Default: 10m.")
        .withDefault(10.minutes),
      Args.long("seed", "Seed of the random kill times and victims. Default: random.").orNone,
      QueueArgs.json,
      Args
        .int("cancels", "Running jobs cancelled during the run, one at a time. Default: 5.")
        .withDefault(5)
    ).tupled.mapValidated { case (target, w, j, k, c, l, work, limit, seed, json, cancels) =>
      (
        if k < 0 then s"--kills must not be negative, got $k".invalidNel else k.validNel,
        if cancels < 0 then
          s"--cancels must not be negative, got $cancels (0: no cancels)".invalidNel
        else cancels.validNel,
        if l < 300.millis then
          s"--lease must be at least 300ms, got ${weir.Durations.show(l)}".invalidNel
        else l.validNel,
        weir.http.Delay.parse(work).leftMap(e => s"--work: ${e.getMessage}").toValidatedNel
      ).mapN((kills, cancelCount, lease, _) =>
        TorturePlan(
          target,
          w,
          j,
          kills,
          c,
          lease,
          work,
          limit,
          seed.getOrElse(System.nanoTime),
          json,
          cancelCount
        )
      )
    }

  val opts: Opts[IO[ExitCode]] =
    Opts.subcommand(
      "torture",
      """Crash-test the queue on your own PostgreSQL: real weir worker processes drain a queue of their own (jobs of three kinds, and the jobs of a schedule on it every 2 x lease + 3 s, whole seconds) while they are SIGKILLed and restarted, each kill aimed in turn at a worker claiming (its claim statement running on the server), handling (holding jobs, no statement running) and completing (its completion statement running), and one is SIGSTOPped past its lease and resumed, and --cancels running jobs are cancelled; then the invariants are checked in the database and printed, for the whole run and for each phase's kills: no job lost (every job of each kind completed or cancelled, the cancelled ones exactly those cancelled), every period of the schedule from the first to the last with exactly one job (none skipped, none doubled), every completion under the current attempt, duplicate runs within the jobs in flight at the kills, recovery time after each kill. A kill counts as a hit when the server shows, after the SIGKILL, that it landed in its phase. Exit 0 when the invariants hold, 1 when one does not, 2 bad input or no database, 130 after Ctrl-C (the first stops the kills and stops the workers gracefully, then prints what was reached; the second kills the workers at once).
        |
        |Examples:
        |  weir queue torture --url postgresql://me@localhost/db
        |  weir queue torture --workers 4 --jobs 50000 --kills 30 --seed 7""".stripMargin
    )(planOpts(sys.env).map(run))

  def run(plan: TorturePlan): IO[ExitCode] =
    PgSession.open[IO](plan.target, "weir queue torture").attempt.use {
      case Left(e) => QueueArgs.failed("queue torture", e).as(Exit.BadInput)
      case Right(session) =>
        QueueSchema.migrate[IO](session).map(_.map(_.report.outcome)).flatMap {
          case Left(e) => QueueArgs.failed("queue torture", e).as(Exit.BadInput)
          // A migration that failed (nothing interrupts this one) is as bad as none.
          case Right(ApplyReport.Outcome.Failed(e)) =>
            QueueArgs.failed("queue torture", e).as(Exit.BadInput)
          case Right(_) =>
            (IO.deferred[Unit], IO.deferred[Unit]).flatMapN { (stop, now) =>
              Interrupts
                .resource(stop.complete(()).void, stop.complete(()) >> now.complete(()).void)
                .surround(torture(plan, session, stop.get, now.get))
                .flatMap { report =>
                  Console
                    .out(TortureRender(report, plan.json))
                    .as(
                      if report.interrupted then Exit.Interrupted
                      else if report.passed then Exit.Ok
                      else Exit.Failed
                    )
                }
            }
        }
    }

  /** Runs the torture and returns what it found; the caller's session is used for enqueueing and
    * checking. `stop` and `stopNow` end it early ([[Torture.run]]).
    */
  def torture(
      plan: TorturePlan,
      session: PgSession[IO],
      stop: IO[Unit] = IO.never,
      stopNow: IO[Unit] = IO.never
  ): IO[TortureReport] =
    val queue = s"torture-${ProcessHandle.current.pid}-${plan.seed.abs % 100000}"
    for
      template <- IO.fromEither(NewJob("").withQueue(queue)).map(_.withMaxAttempts(Attempts(1000)))
      random <- Random.scalaUtilRandomSeedLong[IO](plan.seed)
      mix <- Random
        .scalaUtilRandomSeedLong[IO](plan.seed + 1)
        .map(new TortureMix(queue, plan.lease, _))
      _ <- Enqueue
        .stream(session, fs2.Stream.range(0, plan.jobs).map(mix.job(template, _)), 10000)
        .compile
        .drain
      _ <- mix.schedule(session)
      log <- IO.blocking(Files.createTempFile("weir-torture-", ".log"))
      report <- (
        PgSession.open[IO](plan.target, "weir queue torture (stall)"),
        PgSession.open[IO](plan.target, "weir queue torture (cancels)")
      ).tupled.use((stall, cancels) =>
        new Torture(plan, queue, session, stall, log, random, mix, cancels).run(stop, stopNow)
      )
    yield report

  /** The arguments of every worker process. */
  def workerArgs(plan: TorturePlan, queue: String): List[String] =
    List(
      "--url",
      plan.target.uriWithoutPassword,
      "--queue",
      queue,
      "--sleep",
      plan.work,
      "--concurrency",
      plan.concurrency.toString,
      "--lease",
      s"${plan.lease.toMillis}ms",
      "--poll",
      "200ms",
      "--backoff",
      "0ms",
      "--grace",
      "5s",
      "--record-runs",
      "--no-live",
      "--format",
      "json"
    )
