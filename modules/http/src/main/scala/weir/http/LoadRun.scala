package weir.http

import cats.effect.kernel.{Async, Deferred, Ref, Resource}
import cats.effect.syntax.all.*
import cats.syntax.all.*
import fs2.{Chunk, Stream}
import io.netty.channel.EventLoopGroup
import scala.concurrent.duration.*
import weir.{Limits, Source}
import weir.engine.*
import weir.strategy.Weir

/** One load: the configured requests as tasks of weir's engine ([[weir.engine.Engine]]), each sent
  * by [[HttpClient]], each result recorded in a [[LoadRecorder]], then a [[LoadReport]].
  *
  * The engine runs the default strategy with `concurrency` workers (or the adaptive limit's
  * maximum, gated by the limit), the load's retry policy and a skip-and-record error policy: a
  * failed request is counted by class and the load goes on. Its live statistics ([[snapshot]]) are
  * what a live view reads.
  *
  * '''Warm-up.''' With [[LoadConfig.warmUp]] above 0 the client first sends that many requests to
  * weir's own in-process server ([[WarmUp]]), so that its code is compiled before the first request
  * to the target; the load's clock, counts and duration start after it. [[warmingUp]] is true
  * meanwhile.
  *
  * '''Stopping.''' [[stop]] (Ctrl-C), the duration and a server that refuses
  * [[LoadConfig.refusedLimit]] connections in a row all stop launching (the engine's graceful
  * stop); requests in flight then get [[LoadConfig.grace]] to finish before they are cancelled and
  * counted as unfinished, and [[run]] returns the report of the whole run. A stop during the
  * warm-up cancels it and launches nothing. Cancelling [[run]] itself cancels everything at once
  * and returns no report.
  *
  * '''Errors.''' Request failures are counted by [[ErrorClass]], never raised; a line of a URL file
  * that is not a URL is counted as an `input` error with its line number. [[run]] fails only when
  * the URL file cannot be read.
  */
final class LoadRun[F[_]] private (
    val config: LoadConfig,
    val recorder: LoadRecorder,
    stopSignal: Deferred[F, Unit],
    ending: Ref[F, Option[Ending]]
)(using F: Async[F]):

  @volatile private var warming = false
  @volatile private var clockStart: Option[FiniteDuration] = None
  @volatile private var engine: Option[Engine[F]] = None

  /** True while the client warms up, before the load (see [[LoadConfig.withWarmUp]]). */
  def warmingUp: Boolean = warming

  /** When the load's clock started (`F.monotonic`, after any warm-up); `None` before. */
  def startedAt: Option[FiniteDuration] = clockStart

  /** The engine's statistics now, once the load has started (not during the warm-up). */
  def snapshot: F[Option[Snapshot]] = engine.traverse(_.snapshot)

  /** The engine's statistics every `every`, once the load has started; for a live view. */
  def snapshots(every: FiniteDuration): Stream[F, Snapshot] =
    Stream
      .repeatEval(F.delay(engine))
      .metered(every min 50.millis)
      .collectFirst { case Some(e) =>
        e
      }
      .flatMap(_.snapshots(every))

  /** Stops launching for `why` (the first reason given wins). Idempotent. */
  def stop(why: Ending): F[Unit] =
    ending.update(_.orElse(Some(why))) >> stopSignal.complete(()).void

  /** Stops launching and cuts the requests in flight off now, without the grace period (a second
    * Ctrl-C); [[run]] then reports at once. Idempotent.
    */
  def stopNow(why: Ending): F[Unit] = stop(why) >> engine.traverse_(_.stopNow)

  /** Runs the load to its end (or its stop) and reports. Run it once. */
  def run: F[LoadReport] = runWith(HttpClient.resource[F](config.ioThreads, config.timeout))

  /** [[run]] with connections on `group` (see [[EventLoopRuntime]]). */
  def runOn(group: EventLoopGroup): F[LoadReport] = runWith(HttpClient.on[F](group, config.timeout))

  /** [[run]] with requests sent by what `newClient` makes (one for the warm-up, one for the load).
    */
  private[http] def runWith(newClient: Resource[F, Requester[F]]): F[LoadReport] =
    warmUp(newClient).flatMap(warm => newClient.use(client => load(client, warm)))

  /** The client's warm-up against weir's own server, before the load's clock starts: a load of its
    * own ([[WarmUp.config]]) on a client of its own, both closed when it ends. A stop cancels it; a
    * failure skips it (the load runs anyway, the report says why).
    */
  private def warmUp(newClient: Resource[F, Requester[F]]): F[Option[WarmUp]] =
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

  /** The load itself on the engine, timed from its start; `warm` goes into its report as it is. */
  private def load(client: Requester[F], warm: Option[WarmUp]): F[LoadReport] =
    for
      e <- Engine.create[F](LoadRun.settings(config))
      start <- F.monotonic
      _ <- F.delay { engine = Some(e); clockStart = Some(start) }
      requests = new Requests(client, e, start)
      timer = config.duration.fold(F.unit)(d => F.sleep(d) >> stop(Ending.DurationReached))
      stopper = stopSignal.get >> e.stop
      timeline = new LoadTimeline(recorder, start, LoadRun.TimelineInterval)
      last <- F.both(F.both(timer, stopper), timeline.sample[F]).background.surround(requests.all)
      end <- F.monotonic
      _ <- F.delay(timeline.close(end))
      why <- ending.get
      report <- LoadRun.report(config, last, recorder.snapshot, end - start, why, warm)
    yield report.copy(timeline = timeline.intervalsSoFar)

  /** The requests of one load on engine `e`, whose clock started at `start`. */
  private final class Requests(client: Requester[F], e: Engine[F], start: FiniteDuration):
    private val one = new LoadRequests(config, recorder, client, start, stop(Ending.ServerGone))

    def all: F[Snapshot] = config.source match
      case LoadConfig.Source.Template(template, count) =>
        e.runTo(Source.single(LoadRun.ids[F](count)))(id => one.attempt(template.target(id), id))(
          one.record(_)(identity)
        )
      case LoadConfig.Source.UrlFile(path) =>
        e.runTo(Source.single(UrlFile.lines[F](path))) { line =>
          line.target.fold(F.raiseError, one.attempt(_, line.index))
        }(one.record(_)(_.index))

object LoadRun:

  /** The resolution of a load's [[LoadTimeline]] (until it is widened). */
  val TimelineInterval: FiniteDuration = 1.second

  /** Ids per chunk of a template's source. */
  private val IdsPerChunk = 1024

  /** A load ready to [[LoadRun.run]]. */
  def create[F[_]](config: LoadConfig)(using F: Async[F]): F[LoadRun[F]] =
    (Deferred[F, Unit], Ref.of[F, Option[Ending]](None)).mapN((signal, why) =>
      new LoadRun[F](config, new LoadRecorder, signal, why)
    )

  /** The engine's settings for a load: the default strategy with a buffer as deep as the
    * concurrency (so that every worker takes one request at a time), skip-and-record, the load's
    * retries and grace period.
    */
  private[http] def settings(config: LoadConfig): EngineSettings =
    val n = config.maxConcurrency
    val base = EngineSettings.default
      .withStrategy(Weir)
      .withLimits(Limits.of(n, n).getOrElse(Limits.default))
      .withErrorPolicy(ErrorPolicy.Skip)
      .withRetry(config.retryPolicy)
    val limited = config.concurrency match
      case LoadConfig.Concurrency.Fixed(_)    => base
      case LoadConfig.Concurrency.Adaptive(a) => base.withAdaptiveConcurrency(a)
    limited.withStopGrace(config.grace).getOrElse(limited)

  /** Ids `0 until count` (or without end), in chunks. */
  private[http] def ids[F[_]](count: Option[Long]): Stream[F, Long] =
    Stream.unfoldChunk(0L) { from =>
      val n = count.fold(IdsPerChunk.toLong)(c => math.min(IdsPerChunk.toLong, c - from)).toInt
      if n <= 0 then None else Some((Chunk.array(Array.tabulate(n)(from + _)), from + n))
    }

  private def report[F[_]](
      config: LoadConfig,
      last: Snapshot,
      s: LoadRecorder.Snapshot,
      elapsed: FiniteDuration,
      why: Option[Ending],
      warm: Option[WarmUp]
  )(using F: Async[F]): F[LoadReport] =
    val notStarted = last.failed.getOrElse("not-started", 0L)
    val closed = config.rate.isEmpty
    val concurrency = last.concurrencyLimit
    val ceiling = config.meanDelay.filter(_ => closed).map(LittleLaw.ceiling(concurrency, _))
    val fixed = config.concurrency match
      case LoadConfig.Concurrency.Fixed(_)    => true
      case LoadConfig.Concurrency.Adaptive(_) => false
    val ideal = config.serverDelay.filter(_ => closed && fixed && s.finished > 0) match
      case Some(d) =>
        F.blocking(Some(LittleLaw.finiteIdeal(s.finished, concurrency, d, config.serverSeed)))
      case None => F.pure(None)
    ideal.map { finite =>
      LoadReport(
        target = config.describe,
        concurrency = concurrency,
        adaptive = config.concurrency match
          case LoadConfig.Concurrency.Adaptive(a) => Some((a.min, a.max))
          case LoadConfig.Concurrency.Fixed(_)    => None
        ,
        rate = config.rate,
        planned = config.planned,
        launched = last.taken - notStarted,
        unfinished = last.failed.getOrElse("cancelled", 0L),
        retries = last.retried,
        statuses = s.statuses,
        errors = s.errors,
        samples = s.samples,
        badLines = s.badLines,
        latency = s.overall,
        distribution = Latency.distribution(s.histogram),
        elapsed = elapsed,
        peakInFlight = s.peakInFlight,
        ending = why.getOrElse(Ending.Completed),
        ceiling = ceiling,
        finiteIdeal = finite,
        warmUp = warm
      )
    }
