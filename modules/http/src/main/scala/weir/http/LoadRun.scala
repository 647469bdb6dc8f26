package weir.http

import cats.effect.kernel.{Async, Deferred, Ref, Resource}
import cats.effect.syntax.all.*
import cats.syntax.all.*
import fs2.Stream
import io.netty.channel.EventLoopGroup
import java.nio.file.Files
import scala.concurrent.duration.*
import weir.launch.{LaunchSettings, Launcher, Slot}

/** One load: launches the configured requests through [[weir.launch.Launcher]] and [[HttpClient]],
  * records them in a [[LoadRecorder]], and makes a [[LoadReport]].
  *
  * '''Warm-up.''' With [[LoadConfig.warmUp]] above 0 the client first sends that many requests to
  * weir's own in-process server ([[WarmUp]]), so that its code is compiled before the first request
  * to the target; the load's clock, counts and `--duration` start after it. [[warmingUp]] is true
  * meanwhile (for a live view).
  *
  * '''Stopping.''' [[stop]] (Ctrl-C), `--duration` and a server that refuses
  * [[LoadConfig.refusedLimit]] connections in a row all stop launching; requests in flight then get
  * [[LoadConfig.grace]] to finish before they are cancelled, and [[run]] returns the report of what
  * finished. Nothing waits longer than the timeout plus the grace period. A stop during the warm-up
  * cancels it and launches nothing.
  *
  * '''Errors.''' Request failures are counted by [[ErrorClass]], never raised. [[run]] fails only
  * when a URL file cannot be read (or has a bad line).
  */
final class LoadRun[F[_]] private (
    val config: LoadConfig,
    val recorder: LoadRecorder,
    stopSignal: Deferred[F, Unit],
    ending: Ref[F, Option[Ending]]
)(using F: Async[F]):

  @volatile private var warming = false
  @volatile private var clockStart: Option[FiniteDuration] = None

  /** True while the client warms up, before the load (see [[LoadConfig.withWarmUp]]). */
  def warmingUp: Boolean = warming

  /** When the load's clock started (`F.monotonic`, after any warm-up); `None` before. */
  def startedAt: Option[FiniteDuration] = clockStart

  /** Stops launching for `why` (the first reason given wins). Idempotent. */
  def stop(why: Ending): F[Unit] =
    ending.update(_.orElse(Some(why))) >> stopSignal.complete(()).void

  /** Runs the load to its end (or its stop) and reports. Run it once. */
  def run: F[LoadReport] = runWith(HttpClient.resource[F](config.ioThreads, config.timeout))

  /** [[run]] with connections on `group` (see [[EventLoopRuntime]]). */
  def runOn(group: EventLoopGroup): F[LoadReport] = runWith(HttpClient.on[F](group, config.timeout))

  private def runWith(newClient: Resource[F, HttpClient[F]]): F[LoadReport] =
    warmUp(newClient).flatMap(warm => timed(newClient, warm))

  /** The client's warm-up against weir's own server, before the load's clock starts: a load of its
    * own ([[WarmUp.config]]) on a client of its own, both closed when it ends. A stop cancels it; a
    * failure skips it (the load runs anyway, the report says why).
    */
  private def warmUp(newClient: Resource[F, HttpClient[F]]): F[Option[WarmUp]] =
    if config.warmUp <= 0 then F.pure(None)
    else
      val warm: F[Option[WarmUp]] = DelayServer
        .resource[F](WarmUp.server)
        .use { server =>
          LoadRun.create[F](WarmUp.config(config, server.port)).flatMap(_.runWith(newClient))
        }
        .map(r => Some(WarmUp(r.finished, r.elapsed)))
        .handleError(e =>
          Some(WarmUp(0, Duration.Zero, Some(Option(e.getMessage).getOrElse(e.toString))))
        )
      (F.delay { warming = true } >> F.race(stopSignal.get, warm).map(_.toOption.flatten))
        .guarantee(F.delay { warming = false })

  /** The load itself, timed from its first launch; `warm` goes into its report as it is. */
  private def timed(newClient: Resource[F, HttpClient[F]], warm: Option[WarmUp]): F[LoadReport] =
    val settings = LaunchSettings
      .of(config.concurrency, config.rate)
      .fold(msg => throw new IllegalArgumentException(msg), identity)
    newClient.use { client =>
      // Only the exchange itself is cancelable: a request is counted exactly once, as answered,
      // failed or abandoned.
      def handle(slot: Slot[Target]): F[Unit] = F.uncancelable { poll =>
        F.delay(recorder.started()) >>
          poll(client.send(slot.input, config.request))
            .onCancel(F.delay(recorder.abandoned()))
            .flatMap { result =>
              F.monotonic.flatMap { now =>
                result match
                  case Right(status) =>
                    F.delay(recorder.answered(status, now.toNanos - slot.scheduled.toNanos))
                  case Left(error) =>
                    F.delay(recorder.failed(ErrorClass.of(error))).flatMap { refused =>
                      if refused >= config.refusedLimit then stop(Ending.ServerGone) else F.unit
                    }
              }
            }
      }

      val launch = config.source match
        case LoadConfig.Source.Template(template, n) =>
          Launcher.count[F](n, settings, Some(stopSignal))(slot =>
            handle(Slot(slot.index, template.target(slot.input), slot.scheduled))
          )
        case LoadConfig.Source.UrlFile(path) =>
          Launcher.stream[F, Target](LoadRun.lines[F](path), settings, Some(stopSignal))(handle)

      val timer = config.duration.fold(F.unit)(d => F.sleep(d) >> stop(Ending.DurationReached))
      val cutOff = stopSignal.get >> F.sleep(config.grace)
      for
        start <- F.monotonic
        _ <- F.delay { clockStart = Some(start) }
        _ <- timer.background.surround(F.race(launch, cutOff))
        end <- F.monotonic
        why <- ending.get
        report <- LoadRun.report(
          config,
          recorder.snapshot,
          end - start,
          why.getOrElse(Ending.Completed),
          warm
        )
      yield report
    }

object LoadRun:

  /** A load ready to [[LoadRun.run]]; `recorder` may be read while it runs. */
  def create[F[_]](config: LoadConfig)(using F: Async[F]): F[LoadRun[F]] =
    (Deferred[F, Unit], Ref.of[F, Option[Ending]](None)).mapN((signal, why) =>
      new LoadRun[F](config, new LoadRecorder, signal, why)
    )

  /** The non-blank lines of a URL file as targets, read lazily on the blocking pool. */
  def lines[F[_]](path: java.nio.file.Path)(using F: Async[F]): Stream[F, Target] =
    Stream
      .resource(Resource.fromAutoCloseable(F.blocking(Files.newBufferedReader(path))))
      .flatMap(reader => Stream.repeatEval(F.blocking(Option(reader.readLine()))).unNoneTerminate)
      .map(_.trim)
      .filter(line => line.nonEmpty && !line.startsWith("#"))
      .evalMap(line =>
        F.fromEither(
          Target.parse(line).left.map(msg => new IllegalArgumentException(s"$path: $msg"))
        )
      )

  private def report[F[_]](
      config: LoadConfig,
      s: LoadRecorder.Snapshot,
      elapsed: FiniteDuration,
      why: Ending,
      warm: Option[WarmUp]
  )(using
      F: Async[F]
  ): F[LoadReport] =
    val planned = config.source match
      case LoadConfig.Source.Template(_, n) if n != Long.MaxValue => Some(n)
      case _                                                      => None
    val closed = config.rate.isEmpty
    val ceiling =
      config.meanDelay.filter(_ => closed).map(m => LittleLaw.ceiling(config.concurrency, m))
    val ideal = config.serverDelay.filter(_ => closed && s.finished > 0) match
      case Some(d) =>
        F.blocking(
          Some(LittleLaw.finiteIdeal(s.finished, config.concurrency, d, config.serverSeed))
        )
      case None => F.pure(None)
    ideal.map { finite =>
      LoadReport(
        config.describe,
        config.concurrency,
        config.rate,
        planned,
        s.launched,
        s.abandoned,
        s.statuses,
        s.errors,
        s.overall,
        elapsed,
        s.peakInFlight,
        why,
        ceiling,
        finite,
        warm
      )
    }
