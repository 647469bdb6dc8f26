package weir.http

import cats.effect.kernel.{Async, Resource}
import cats.effect.syntax.all.*
import cats.syntax.all.*
import fs2.{Chunk, Stream}
import io.netty.channel.EventLoopGroup
import scala.concurrent.duration.*
import weir.{Capacity, Limits, Source}
import weir.engine.*
import weir.http.LoadControl.Stage
import weir.strategy.Weir

/** One load: the configured requests as tasks of one run of weir's engine ([[weir.engine.Run]],
  * started by [[weir.engine.Engine.startRecorded]]), each sent by [[HttpClient]], each result
  * recorded in a [[LoadRecorder]] and, on the run's ticks, a [[LoadTimeline]] ([[LoadRequests]]),
  * then a [[LoadReport]].
  *
  * The engine runs the default strategy with `concurrency` workers (or the adaptive limit's
  * maximum, gated by the limit), the load's retry policy and a skip-and-record error policy: a
  * failed request is counted by class and the load goes on. Its live statistics ([[progress]]) are
  * what a live view reads.
  *
  * '''Warm-up.''' With [[LoadConfig.warmUp]] above 0 the client first sends that many requests to
  * weir's own in-process server ([[WarmUp]]), so that its code is compiled before the first request
  * to the target; the load's clock, counts and duration start after it. [[warmingUp]] is true
  * meanwhile. Above [[WarmUp.FirstRound]] requests it runs in two rounds (see there).
  *
  * '''Stopping.''' [[stop]] (Ctrl-C), the duration and a server that refuses
  * [[LoadConfig.refusedLimit]] connections in a row all stop the run the same way: its own graceful
  * [[weir.engine.Run.stop]], which ends launching; requests in flight then get [[LoadConfig.grace]]
  * to finish before they are cancelled and counted as unfinished ([[stopNow]] cuts them off at
  * once), and [[run]] returns the report of the whole run, whose [[Ending]] is the first reason
  * given. A stop during the warm-up cancels it and launches nothing. Cancelling [[run]] itself
  * cancels everything at once and returns no report.
  *
  * '''Errors.''' Request failures are counted by [[ErrorClass]], never raised; a line of a URL file
  * that is not a URL is counted as an `input` error with its line number. [[run]] fails only when
  * the URL file cannot be read.
  */
final class LoadRun[F[_]] private (
    val config: LoadConfig,
    val recorder: LoadRecorder,
    control: LoadControl[F]
)(using F: Async[F]):

  /** True while the client warms up, before the load (see [[LoadConfig.withWarmUp]]). */
  def warmingUp: F[Boolean] = control.stage.map {
    case Stage.Before(warming) => warming
    case Stage.Running(_, _)   => false
  }

  /** When the load's clock started (`F.monotonic`, after any warm-up); `None` before. */
  def startedAt: F[Option[FiniteDuration]] = control.stage.map {
    case Stage.Running(_, start) => Some(start)
    case Stage.Before(_)         => None
  }

  /** The run's statistics now, once the load has started (not during the warm-up). */
  def snapshot: F[Option[Snapshot]] = control.stage.flatMap {
    case Stage.Running(run, _) => run.snapshot.map(Some(_))
    case Stage.Before(_)       => F.pure(None)
  }

  /** What a live view shows, every `every` while it is pulled: [[LoadRun.Progress.WarmingUp]] while
    * the client warms up, then the run's snapshots ([[weir.engine.Run.snapshots]]) once the load
    * has started (and after it has ended, its last figures). Nothing before either.
    */
  def progress(every: FiniteDuration): Stream[F, LoadRun.Progress] =
    control.stages.switchMap {
      case Stage.Before(true)    => Stream.fixedRate[F](every).as(LoadRun.Progress.WarmingUp)
      case Stage.Before(false)   => Stream.empty
      case Stage.Running(run, _) => run.snapshots(every).map(LoadRun.Progress.Loading(_))
    }

  /** Stops launching for `why` (the first reason given wins), through the run's graceful stop; a
    * stop before the load has started means it launches nothing. Idempotent, returns at once.
    */
  def stop(why: Ending): F[Unit] = control.stop(why)

  /** Stops launching and cuts the requests in flight off now, without the grace period (a second
    * Ctrl-C): the run's [[weir.engine.Run.stopNow]]; [[run]] then reports at once. Idempotent.
    */
  def stopNow(why: Ending): F[Unit] = control.stopNow(why)

  /** Runs the load to its end (or its stop) and reports. Run it once. */
  def run: F[LoadReport] = runWith(c =>
    c.http2 match
      case None    => HttpClient.resource[F](c.ioThreads, c.client)
      case Some(n) => Http2Client.resource[F](c.ioThreads, c.client, n)
  )

  /** [[run]] with connections on `group` (see [[EventLoopRuntime]]). */
  def runOn(group: EventLoopGroup): F[LoadReport] = runWith(c =>
    c.http2 match
      case None    => HttpClient.on[F](group, c.client)
      case Some(n) => Http2Client.on[F](group, c.client, n)
  )

  /** [[run]] with requests sent by what `newClient` makes for a load's configuration (the
    * warm-up's, then this one's), the warm-up's to `ownServer` (weir's own server, over TLS for an
    * `https://` load, unless a test says otherwise).
    */
  private[http] def runWith(
      newClient: LoadConfig => Resource[F, Requester[F]],
      ownServer: Resource[F, WarmUp.OwnServer] = WarmUp.ownServerFor[F](config)
  ): F[LoadReport] =
    warmUp(newClient, ownServer).flatMap(warm =>
      newClient(config).use(client => load(client, warm))
    )

  /** The client's warm-up against weir's own server, before the load's clock starts: a load of its
    * own ([[WarmUp.config]]) on a client of its own, both closed when it ends; in two such rounds
    * ([[WarmUp.rounds]]), its requests and time their sums. A stop cancels it; a failure skips it
    * (the load runs anyway, the report says why).
    */
  private def warmUp(
      newClient: LoadConfig => Resource[F, Requester[F]],
      ownServer: Resource[F, WarmUp.OwnServer]
  ): F[Option[WarmUp]] =
    if config.warmUp <= 0 then F.pure(None)
    else
      control.warming(
        ownServer
          .use(own =>
            WarmUp
              .rounds(config, own)
              .traverse(c => LoadRun.create[F](c).flatMap(_.runWith(newClient)))
          )
          .map(rs => WarmUp(rs.map(_.finished).sum, rs.map(_.elapsed).reduce(_ + _)))
          .handleError(e =>
            WarmUp(0, Duration.Zero, Some(Option(e.getMessage).getOrElse(e.toString)))
          )
      )

  /** The load itself, one run on the engine timed from its start; `warm` goes into its report as it
    * is. The run's recorder feeds the [[LoadRecorder]] and, on its ticks, the [[LoadTimeline]];
    * beside the run, the duration's timer, ended with it.
    */
  private def load(client: Requester[F], warm: Option[WarmUp]): F[LoadReport] =
    for
      launch <- control.launching
      // Its TLS context before its clock: built on the first connection, it held up all the
      // first connections (README's HTTPS run, -c 50: p99 258 ms; 114-196 ms once built before).
      _ <- if config.secure then F.blocking(client.prepareTls()).attempt.void else F.unit
      cpuAtStart <- F.delay(ProcessCpu.used())
      start <- F.monotonic
      requests = new LoadRequests(config, recorder, client, start, stop(Ending.ServerGone))
      timer = config.duration.fold(F.unit)(d => F.sleep(d) >> stop(Ending.DurationReached))
      timeline = new LoadTimeline(recorder, start, LoadRun.TimelineInterval)
      last <- started(requests, timeline, launch).use { run =>
        control.running(run, start) >> timer.background.surround(run.join)
      }
      end <- F.monotonic
      cpuAtEnd <- F.delay(ProcessCpu.used())
      why <- control.why
      report <- LoadRun.report(config, last, recorder.snapshot, end - start, why, warm)
    yield report.copy(
      timeline = timeline.intervalsSoFar,
      protocols = client.protocols,
      sessions = client.tlsSessions,
      clientCpu = ProcessCpu.between(cpuAtStart, cpuAtEnd)
    )

  /** The load's run: its requests, or none at all when a stop came before it started (during the
    * warm-up: the report then says that nothing was launched).
    */
  private def started(
      requests: LoadRequests[F],
      timeline: LoadTimeline,
      launch: Boolean
  ): Resource[F, Run[F]] =
    def tasks[A](all: Stream[F, A])(index: A => Long): Source[F, A] =
      Source.single(if launch then requests.paced(all)(index) else Stream.empty)
    val settings = LoadRun.settings(config)
    val tick = LoadRun.TimelineInterval
    config.source match
      case LoadConfig.Source.Template(template, count) =>
        val recorder = requests.recording[Long](timeline)(identity)
        Engine.startRecorded(settings, tasks(LoadRun.ids[F](count))(identity), recorder, tick)(id =>
          requests.attempt(template.target(id))
        )
      case LoadConfig.Source.UrlFile(path) =>
        val recorder = requests.recording[UrlLine](timeline)(_.index)
        Engine.startRecorded(settings, tasks(UrlFile.lines[F](path))(_.index), recorder, tick) {
          line =>
            line.target.fold(F.raiseError, requests.attempt)
        }

object LoadRun:

  /** The resolution of a load's [[LoadTimeline]] (until it is widened). */
  val TimelineInterval: FiniteDuration = 1.second

  /** Ids per chunk of a template's source. */
  private val IdsPerChunk = 1024

  /** What a live view of a load shows at one moment (see [[LoadRun.progress]]). */
  enum Progress:
    /** The client warms up on weir's own server; the load has not started. */
    case WarmingUp

    /** The load's run, as its engine's statistics say. */
    case Loading(snapshot: Snapshot)

  /** A load ready to [[LoadRun.run]]. */
  def create[F[_]](config: LoadConfig)(using F: Async[F]): F[LoadRun[F]] =
    LoadControl.create[F].map(new LoadRun[F](config, new LoadRecorder, _))

  /** The engine's settings for a load: the default strategy with a buffer as deep as the
    * concurrency (so that every worker takes one request at a time), skip-and-record, the load's
    * retries and grace period.
    */
  private[http] def settings(config: LoadConfig): EngineSettings =
    val n = config.maxConcurrency
    val base = EngineSettings.default
      .withStrategy(Weir)
      .withLimits(Limits(n, Capacity.of(n)))
      .withErrorPolicy(ErrorPolicy.Skip)
      .withRetry(config.retryPolicy)
    val limited = config.concurrency match
      case LoadConfig.Concurrency.Fixed(_)    => base
      case LoadConfig.Concurrency.Adaptive(a) => base.withAdaptiveConcurrency(a)
    limited.withStopGrace(config.grace)

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
        launched = last.taken - last.notStarted,
        unfinished = last.cancelled,
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
        warmUp = warm,
        tls = Option.when(config.secure || config.tls != ClientTls.default)(config.tls.describe),
        insecure = !config.tls.verify
      )
    }
