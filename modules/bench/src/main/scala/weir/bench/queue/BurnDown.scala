package weir.bench.queue

import cats.effect.{ExitCode, IO, IOApp, Resource}
import cats.effect.std.Mutex
import cats.syntax.all.*
import com.comcast.ip4s.*
import io.circe.Codec
import scala.concurrent.duration.*
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
  * Prints `MODE COMPLETED JOBS_PER_SECOND` on stdout. Usage: `BurnDown MODE URL`.
  */
object BurnDown extends IOApp:

  final case class Email(to: String, template: String) derives Codec.AsObject
  final case class Resize(image: Long, width: Int) derives Codec.AsObject

  val email: JobKind[Email] = JobKind[Email]("email")
  val resize: JobKind[Resize] = JobKind[Resize]("resize")

  def run(args: List[String]): IO[ExitCode] = args match
    case List(mode @ ("plain" | "typed" | "kinds" | "observed"), url) =>
      val kinds = mode == "typed" || mode == "kinds"
      val observed = mode == "typed" || mode == "observed"
      val target = IO.fromEither(PgTarget.parse(Some(url), Map.empty))
      target.flatMap { t =>
        Worker.resource[IO](t, queue, settings).use { worker =>
          val handler: Job => IO[Unit] =
            if !kinds then _ => IO.unit
            else
              JobHandlers
                .of[IO](email.handledBy(_ => IO.unit), resize.handledBy(_ => IO.unit))
                .handler
          val around = if observed then observe(t, worker) else Resource.unit[IO]
          around.surround(worker.run(handler, untilEmpty = true)).flatMap { report =>
            val done = report.counts.written.completed
            val seconds = report.engine.elapsed.toNanos / 1e9
            IO.println(f"$mode $done ${done / seconds}%.0f").as(ExitCode.Success)
          }
        }
      }
    case _ => IO.println("usage: BurnDown plain|kinds|observed|typed URL").as(ExitCode(2))

  private val queue = QueueSettings.default.withClaimBatch(Capacity(1000))

  private val settings = WorkerSettings.default
    .withConcurrency(Concurrency(200))
    .withQueueCapacity(Capacity(1000))
    .withTaskTimeout(PositiveDuration.minutes(5))

  // The log at info, the tally and a /metrics endpoint, as `weir worker --log info --metrics`.
  private def observe(target: PgTarget, worker: Worker[IO]): Resource[IO, Unit] =
    for
      _ <- WorkerLog.resource(worker, new StderrLogger(WorkerLog.Level.Info))
      latest <- Resource.eval(IO.ref(Option.empty[Worker.Progress]))
      _ <- worker.progress.evalMap(p => latest.set(Some(p))).compile.drain.background
      tally <- WorkerTally.resource(worker)
      session <- PgSession.open[IO](target, "burn-down metrics")
      reading <- Resource.eval(Mutex[IO])
      depth = reading.lock.surround(QueueAdmin.depth(session, queue.queue)).attempt
      page = (latest.get, tally.current, depth).mapN((p, t, d) =>
        PrometheusText(queue.queue, p, t, d.toOption)
      )
      _ <- MetricsServer.resource(SocketAddress(ip"127.0.0.1", port"0"), page)
    yield ()
