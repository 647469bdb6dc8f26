package weir.cli.queue

import cats.data.{NonEmptyList, ValidatedNel}
import cats.syntax.all.*
import com.comcast.ip4s.{Host, SocketAddress}
import com.monovore.decline.Opts
import scala.concurrent.duration.*
import weir.{Attempts, NonNegativeDuration, PositiveDuration}
import weir.cli.common.{Args, TlsArgs}
import weir.engine.RetryPolicy
import weir.http.{ClientTls, Delay}
import weir.postgres.PgTarget
import weir.postgres.queue.{QueueSettings, WorkerLog, WorkerSettings}

/** What `weir worker` will do, decided before anything connects. `--timeout` is applied once: by
  * the handler itself when it can ([[JobHandler.timesOutItself]]: the HTTP client's request
  * timeout, `timeout` here), else by the worker's engine (`worker.taskTimeout`).
  */
final case class WorkerPlan(
    target: PgTarget,
    handler: JobHandler,
    queue: QueueSettings,
    worker: WorkerSettings,
    timeout: FiniteDuration,
    untilEmpty: Boolean,
    recordRuns: Boolean,
    json: Boolean,
    live: Boolean,
    metrics: Option[SocketAddress[Host]] = None,
    log: Option[WorkerLog.Level] = None,
    warmUp: Long = 0L
)

/** The options of `weir worker`; every error names its option (exit 2). */
object WorkerOptions:

  private val http = Opts
    .option[String](
      "http",
      "Handle a job with a GET of this URL (http:// or https://; --cacert, --insecure and --tls-engine as in weir load), {payload} replaced by the payload (URL-encoded), on weir's own HTTP client: 2xx completes the job, anything else fails the attempt. Its host is tried once before the first claim: a certificate that would be refused stops the worker there (exit 2, saying why); a host that does not answer yet is a warning.",
      metavar = "URL-TEMPLATE"
    )
    .orNone
  private val exec = Opts
    .flag(
      "exec",
      "Handle a job by running the command given after the options (after --), every {} in its arguments replaced by the payload as one argument, never through a shell: exit status 0 completes the job."
    )
    .orFalse
  private val command = Opts.arguments[String]("CMD ARG...").orEmpty
  private val sleep = Opts
    .option[String](
      "sleep",
      s"Handle a job by sleeping (a benchmark's stand-in for work): ${Delay.syntax}; 0 for no-op jobs.",
      metavar = "DIST"
    )
    .orNone
  private val concurrency = Args
    .int(
      "concurrency",
      "Jobs handled at once by this worker (the engine's bound). Default: 16.",
      short = "c"
    )
    .withDefault(16)
    .mapValidated(n => Args.positive("concurrency", n))
  private val batch =
    Args.int("batch", "Jobs claimed per statement. Default: the concurrency.").orNone
  private val lease = Args
    .duration(
      "lease",
      "How long a claim holds a job before another worker may take it (renewed every third of it while the job runs). Default: 30s."
    )
    .withDefault(30.seconds)
  private val poll = Args
    .duration(
      "poll",
      "An idle worker looks for jobs this often even when no notification comes. Default: 1s."
    )
    .withDefault(1.second)
  private val timeout = Args
    .duration("timeout", "Each attempt is cut off after this long and fails. Default: 5m.")
    .withDefault(5.minutes)
  private val backoff = Args
    .duration(
      "backoff",
      "A failed attempt's job runs again after a random delay up to this, doubling with each attempt, at most 1h (full jitter). Default: 1s."
    )
    .withDefault(1.second)
  private val grace = Args
    .duration(
      "grace",
      "At the first Ctrl-C, jobs in flight get this long to finish; the rest are released at once. Default: 30s."
    )
    .withDefault(30.seconds)
  private val untilEmpty = Opts
    .flag(
      "until-empty",
      "Stop once its queues have no job available, scheduled or running (a burn-down), instead of waiting for more."
    )
    .orFalse
  private val recordRuns = Opts
    .flag(
      "record-runs",
      "Record each attempt as it starts in weir.job_runs (job, attempt, worker): what weir queue torture counts duplicates with."
    )
    .orFalse

  private val metrics = Opts
    .option[String](
      "metrics",
      s"Serve Prometheus metrics at http://HOST:PORT/metrics while the worker runs (jobs completed, failed, retried and discarded by kind, in flight, handler, claim and acknowledgement latency, queue depth), e.g. --metrics ${MetricsServer.example}. Use a loopback address unless the port must be reachable from other machines.",
      metavar = "HOST:PORT"
    )
    .mapValidated(m => MetricsServer.parse(m).leftMap(e => s"--metrics: $e").toValidatedNel)
    .orNone

  private val log = Opts
    .option[String](
      "log",
      "Log the worker's events on stderr at LEVEL or above, one line each with its context (worker, queue, kind, job_id, attempt...), in place of the one-line warnings: warn (statements retried, connections lost, jobs discarded or whose lease was lost), info (failed attempts, jobs cancelled), debug (each job succeeded, each claim), trace (each handler started, each batch written).",
      metavar = "LEVEL"
    )
    .mapValidated(l =>
      WorkerLog.Level.values
        .find(_.toString.equalsIgnoreCase(l))
        .toRight(s"--log: '$l' is not one of warn, info, debug, trace")
        .toValidatedNel
    )
    .orNone

  /** The client warm-up's default, as `weir load`'s. */
  val DefaultWarmUp: Long = 20000L

  private val warmUp = Args
    .long(
      "warm-up",
      s"With --http: before its first claim, send N requests to weir's own in-process server (loopback, no delay; over TLS for an https:// template), so that no job waits on the client's cold code while its lease runs (as weir load warms up). Not jobs; the summary says how long it took. 0: none. Default: $DefaultWarmUp."
    )
    .mapValidated(n =>
      if n >= 0 then n.validNel else s"--warm-up must be 0 or more, got $n".invalidNel
    )
    .orNone

  def opts(env: Map[String, String]): Opts[WorkerPlan] =
    (
      (QueueArgs.target(env), QueueArgs.schema).tupled,
      (http, exec, command, sleep, TlsArgs.opts).tupled,
      QueueArgs.queues,
      (concurrency, batch, lease, poll, timeout, backoff, grace).tupled,
      untilEmpty,
      recordRuns,
      QueueArgs.json,
      QueueArgs.noLive,
      (metrics, log, warmUp).tupled
    ).tupled.mapValidated {
      case (
            (target, schema),
            handlerArgs,
            queue,
            (c, b, l, p, t, back, g),
            empty,
            record,
            json,
            quiet,
            (m, lg, warm)
          ) =>
        (
          handler.tupled(handlerArgs),
          settings(queue, b.getOrElse(c), l, p, back).map(_.withSchema(schema)),
          worker(c, b.getOrElse(c), t, g),
          warming(warm, handlerArgs._1.isDefined)
        ).mapN { (h, q, w, n) =>
          WorkerPlan(
            target = target,
            handler = h,
            queue = q,
            worker = if h.timesOutItself then w.withoutTaskTimeout else w,
            timeout = t,
            untilEmpty = empty,
            recordRuns = record,
            json = json,
            live = !quiet,
            metrics = m,
            log = lg,
            warmUp = n
          )
        }
    }

  // The warm-up's requests: --warm-up's, else the default with --http and none otherwise.
  private def warming(asked: Option[Long], http: Boolean): ValidatedNel[String, Long] =
    asked match
      case Some(n) if !http => s"--warm-up goes with --http (got --warm-up $n)".invalidNel
      case Some(n)          => n.validNel
      case None             => (if http then DefaultWarmUp else 0L).validNel

  private def handler(
      url: Option[String],
      exec: Boolean,
      command: List[String],
      sleep: Option[String],
      tls: ClientTls
  ): ValidatedNel[String, JobHandler] =
    (url, exec, sleep) match
      case (Some(u), false, None) if command.isEmpty => JobHandler.http(u, tls).toValidatedNel
      case (None, true, None) =>
        if command.isEmpty then
          "--exec: no command: write e.g. weir worker --exec -- ./fetch.sh '{}'".invalidNel
        else if !command.exists(_.contains("{}")) then
          s"--exec: no argument of '${command.mkString(" ")}' contains {}, where the payload goes".invalidNel
        else JobHandler.Exec(command).validNel
      case (None, false, Some(d)) if command.isEmpty =>
        Delay
          .parse(d)
          .leftMap(e => s"--sleep: ${e.getMessage}")
          .map(JobHandler.Sleep(_))
          .toValidatedNel
      case (None, false, None) if command.isEmpty =>
        "no handler: give one of --http URL-TEMPLATE, --exec -- CMD ARG... '{}', --sleep DIST".invalidNel
      case _ if command.nonEmpty && !exec =>
        s"unexpected arguments '${command.mkString(" ")}': a command goes with --exec".invalidNel
      case _ => "give one handler only: --http, --exec or --sleep".invalidNel

  private def worker(
      concurrency: Int,
      capacity: Int,
      timeout: FiniteDuration,
      grace: FiniteDuration
  ): ValidatedNel[String, WorkerSettings] =
    (
      Args.concurrency("concurrency", concurrency),
      Args.capacity("batch", capacity),
      Args.named("timeout", PositiveDuration.from(timeout, "timeout")).toValidatedNel,
      Args.named("grace", NonNegativeDuration.from(grace, "grace period")).toValidatedNel
    ).mapN((c, q, t, g) =>
      WorkerSettings.default
        .withConcurrency(c)
        .withQueueCapacity(q)
        .withTaskTimeout(t)
        .withStopGrace(g)
    )

  private def settings(
      queues: NonEmptyList[String],
      batch: Int,
      lease: FiniteDuration,
      poll: FiniteDuration,
      backoff: FiniteDuration
  ): ValidatedNel[String, QueueSettings] =
    (
      QueueSettings.default
        .withQueues(queues)
        .leftMap(e => s"--queue: ${e.getMessage}")
        .toValidatedNel,
      Args.capacity("batch", batch),
      PositiveDuration
        .from(lease, "lease")
        .toOption
        .filter(_ >= 300.millis)
        .toValidNel(s"--lease must be at least 300ms, got ${weir.Durations.show(lease)}"),
      PositiveDuration
        .from(poll, "poll")
        .leftMap(_ => s"--poll must be positive, got ${weir.Durations.show(poll)}")
        .toValidatedNel,
      Args.named("backoff", NonNegativeDuration.from(backoff, "backoff")).toValidatedNel
    ).tupled.andThen { (s, b, l, p, back) =>
      val heartbeat = PositiveDuration.from(l / 3, "heartbeat")
      val hour = NonNegativeDuration.hours(1)
      heartbeat
        .flatMap(s.withClaimBatch(b).withLease(l, _))
        .map(
          _.withPoll(p)
            .withBackoff(
              RetryPolicy.exponential(Attempts(2), back, if back > hour then back else hour)
            )
        )
        .leftMap(e => s"--lease/--poll: ${e.getMessage}")
        .toValidatedNel
    }
