package weir.bench.queue

import cats.effect.{ExitCode, IO, IOApp, Resource}
import cats.effect.std.Mutex
import cats.syntax.all.*
import com.comcast.ip4s.*
import io.circe.Codec
import scala.concurrent.duration.*
import scala.util.chaining.*
import weir.{Capacity, Concurrency, PositiveDuration}
import weir.cli.queue.{MetricsServer, PrometheusText, StderrLogger, WorkerTally}
import weir.postgres.{PgSession, PgTarget}
import weir.postgres.queue.*
import weir.postgres.queue.circe.CirceJobCodec.given

/** One burn-down of a queue filled beforehand (`bench/queue/typed.sh`), as a Scala service would
  * run it, in one of these shapes on the same settings as `weir worker -c 200 --batch 1000` (its
  * default 5 min per-job timeout included):
  *
  *   - `plain`: one handler for every job, nothing subscribed;
  *   - `typed`: two job kinds decoded by the circe codec and served by [[JobHandlers]], with the
  *     worker's log at info ([[WorkerLog]] on a stderr logger), its events tallied and served as
  *     Prometheus text on a loopback port (what `weir worker --metrics` serves), scraped by nobody;
  *   - `kinds` (the kinds alone) and `observed` (the log and metrics alone), to tell the two costs
  *     apart.
  *
  * With `--warm-up`, the same shape first burns down the queue `warmup` (filled beforehand too),
  * then the measured one: a service's JVM has compiled its hot paths long before a burst comes,
  * while a JVM started for the burn-down spends a short run's first seconds compiling them on the
  * cores PostgreSQL needs (measured: `bench/queue/typed.sh`).
  *
  * Prints `MODE COMPLETED JOBS_PER_SECOND` on stdout. Usage: `BurnDown MODE URL [--warm-up]`.
  */
object BurnDown extends IOApp:

  final case class Email(to: String, template: String) derives Codec.AsObject
  final case class Resize(image: Long, width: Int) derives Codec.AsObject

  val email: JobKind[Email] = JobKind[Email]("email")
  val resize: JobKind[Resize] = JobKind[Resize]("resize")

  def run(args: List[String]): IO[ExitCode] = args match
    case (mode @ ("plain" | "typed" | "kinds" | "observed")) :: url :: warm
        if warm.isEmpty || warm == List("--warm-up") =>
      val target = IO.fromEither(PgTarget.parse(Some(url), Map.empty))
      target.flatMap { t =>
        val warmUp = burnDown(t, mode, warmUpQueue).void.whenA(warm.nonEmpty)
        warmUp >> burnDown(t, mode, queue).flatMap { (done, rate) =>
          IO.println(f"$mode $done $rate%.0f").as(ExitCode.Success)
        }
      }
    case _ =>
      IO.println("usage: BurnDown plain|kinds|observed|typed URL [--warm-up]").as(ExitCode(2))

  // One worker in `mode` burns `settings`' queue down: the jobs it completed, and their rate.
  private def burnDown(t: PgTarget, mode: String, settings: QueueSettings): IO[(Long, Double)] =
    val kinds = mode == "typed" || mode == "kinds"
    val observed = mode == "typed" || mode == "observed"
    Worker.resource[IO](t, settings, worker).use { w =>
      val handler: Job => IO[Unit] =
        if !kinds then _ => IO.unit
        else
          JobHandlers
            .of[IO](email.handledBy(_ => IO.unit), resize.handledBy(_ => IO.unit))
            .handler
      val around = if observed then observe(t, w, settings.queue) else Resource.unit[IO]
      around.surround(w.run(handler, untilEmpty = true)).map { report =>
        val done = report.counts.written.completed
        (done, done / (report.engine.elapsed.toNanos / 1e9))
      }
    }

  private val queue = QueueSettings.default.withClaimBatch(Capacity(1000))

  private val warmUpQueue = queue.withQueue("warmup").fold(throw _, identity)

  private val worker = WorkerSettings.default
    .withConcurrency(Concurrency(200))
    .withQueueCapacity(Capacity(1000))
    .pipe(w =>
      if sys.env.contains("BURN_NO_TIMEOUT") then w
      else w.withTaskTimeout(PositiveDuration.minutes(5))
    )

  // The log at info, the tally and a /metrics endpoint, as `weir worker --log info --metrics`.
  private def observe(target: PgTarget, worker: Worker[IO], name: String): Resource[IO, Unit] =
    for
      _ <- WorkerLog.resource(worker, new StderrLogger(WorkerLog.Level.Info))
      latest <- Resource.eval(IO.ref(Option.empty[Worker.Progress]))
      _ <- worker.progress.evalMap(p => latest.set(Some(p))).compile.drain.background
      tally <- WorkerTally.resource(worker)
      session <- PgSession.open[IO](target, "burn-down metrics")
      reading <- Resource.eval(Mutex[IO])
      depth = reading.lock.surround(QueueAdmin.depth(session, name)).attempt
      page = (latest.get, tally.current, depth).mapN((p, t, d) =>
        PrometheusText(name, p, t, d.toOption)
      )
      _ <- MetricsServer.resource(SocketAddress(ip"127.0.0.1", port"0"), page)
    yield ()
