package weir.cli.queue

import cats.effect.{ExitCode, IO, Resource}
import cats.effect.std.Mutex
import cats.syntax.all.*
import com.monovore.decline.Opts
import weir.cli.common.{Console, Exit, Interrupts, StatusLine}
import io.netty.channel.EventLoopGroup
import weir.http.{EventLoopRuntime, WarmUp}
import weir.postgres.PgSession
import weir.runtime.OnRuntime
import weir.postgres.queue.{Job, QueueAdmin, RunLog, Worker, WorkerLog}

/** `weir worker`: drains one queue or several (`--queue` repeated, or a comma list) with a handler,
  * on weir's engine, until Ctrl-C (or, with `--until-empty`, until no job is due). Whatever the
  * number of queues, the process holds the worker's four connections (claim, ack, upkeep, listen),
  * the session that checked the schema (which reads the depth for `--metrics`), and with
  * `--record-runs` the run log's.
  *
  * Flow: options → [[WorkerPlan]] → connect and check the schema (exit 2 when that fails) → a
  * [[Worker]] with the handler ([[JobHandler]]), [[WorkerView]] reading its progress → the
  * [[Worker.Report]] → [[WorkerRender]] on stdout; [[WorkerWarnings]] on stderr as they happen
  * (statements retried, connections lost, jobs interrupted), or with `--log LEVEL` the worker's log
  * ([[weir.postgres.queue.WorkerLog]]) there instead. Exit 0 done, 1 the run failed (one line: its
  * leases could not be renewed for a whole lease, say), 2 bad input, no database or an `https://`
  * target whose certificate it refuses ([[WorkerTarget]]), 130 interrupted. The first Ctrl-C stops
  * claiming and lets jobs in flight finish within `--grace`, then releases the rest; the second
  * releases at once.
  */
object WorkerCommand:

  val opts: Opts[IO[ExitCode]] =
    Opts.subcommand(
      "worker",
      """Drain weir queues on PostgreSQL: claim jobs in batches (FOR UPDATE SKIP LOCKED), run the handler on each on weir's engine, write completions back in batches, each fenced by its attempt. Any number of workers on any number of machines may drain one queue, and one worker may serve several queues (--queue mail --queue sms, claimed in turn) on the same four connections; a worker that dies loses nothing: its leases expire and its jobs run again. Failed attempts are retried with backoff up to each job's max attempts, then discarded (weir queue retry re-drives them).
        |
        |Handlers (one):
        |  --http URL-TEMPLATE            GET the URL with {payload} replaced; 2xx completes the job
        |  --exec -- CMD ARG... '{}'      run CMD, the payload as one argument (no shell); exit 0 completes it
        |  --sleep DIST                   sleep (benchmarks): 0, 10ms, 0..50ms, exp:20ms
        |
        |Examples:
        |  weir worker --http 'http://127.0.0.1:8000/{payload}' -c 200
        |  weir worker --queue thumbs --exec -- convert '{}' -resize 64x64 '{}.small.png'
        |  weir worker --queue mail --queue sms --http 'http://127.0.0.1:8000/{payload}'   two queues, one process
        |  weir worker --sleep 0 --until-empty --no-live     burn a queue down and report the rate
        |  weir worker --sleep 10ms --metrics 127.0.0.1:9464  Prometheus scrapes http://127.0.0.1:9464/metrics
        |  weir worker --sleep 10ms --log info                 failed attempts and warnings on stderr, with context""".stripMargin
    )(WorkerOptions.opts(sys.env).map(run))

  /** Runs the worker until it stops. With `--http`, the target is checked first ([[WorkerTarget]]:
    * a certificate it would refuse ends the command, exit 2; nothing answering is a warning), then
    * the worker computes on its HTTP client's own event loops ([[EventLoopRuntime]], one per core,
    * as `weir load` does): a response resumes its job's fiber on the loop that read it, where on
    * cats-effect's pool every response crossed threads twice, and the client had one loop for every
    * connection. JDBC calls run on the sessions' own threads either way.
    */
  def run(plan: WorkerPlan): IO[ExitCode] = plan.handler match
    case http: JobHandler.Http =>
      WorkerTarget.check(http, plan.timeout).flatMap {
        case Left(refused) => Console.error(s"weir worker: $refused").as(Exit.BadInput)
        case Right(warning) =>
          warning.traverse_(w => Console.error(s"weir worker: warning: $w")) >>
            EventLoopRuntime.resource(Runtime.getRuntime.availableProcessors).use {
              (loops, runtime) => OnRuntime.run(serve(plan, Some(loops)), runtime)
            }
      }
    case _ => serve(plan, None)

  private def serve(plan: WorkerPlan, loops: Option[EventLoopGroup]): IO[ExitCode] =
    QueueArgs
      .connected("worker", plan.target, plan.queue.schema) { session =>
        (
          Resource.eval(warmUp(plan, loops)),
          JobHandler.resource(plan.handler, plan.timeout, loops),
          recorder(plan),
          Worker.resource[IO](plan.target, plan.queue, plan.worker)
        ).tupled
          .flatTap((_, _, _, worker) => metrics(plan, session, worker))
          .flatMap { (warm, handle, record, worker) =>
            WorkerFailures.resource(worker).map((warm, handle, record, worker, _))
          }
          .use { (warm, handle, record, worker, failures) =>
            IO.deferred[Unit].flatMap { interrupted =>
              val graceful = interrupted.complete(()) >> worker.stop
              val now = interrupted.complete(()) >> worker.stopNow
              (Interrupts.resource(graceful, now) >> WorkerView.resource(worker, plan) >>
                logging(plan, worker))
                .surround(
                  worker
                    .run(job => record(job) >> handle(job), plan.untilEmpty, StatusLine.every)
                    .attempt
                )
                .flatMap {
                  case Right(report) =>
                    (interrupted.tryGet, failures.current).flatMapN { (stopped, causes) =>
                      Console
                        .out(WorkerRender(plan, report, stopped.isDefined, warm, causes))
                        .as(if stopped.isDefined then Exit.Interrupted else Exit.Ok)
                    }
                  case Left(e) => QueueArgs.failed("worker", e).as(Exit.Failed)
                }
            }
          }
      }
      .recoverWith { case e: MetricsServer.CannotServe =>
        QueueArgs.failed("worker", e).as(Exit.BadInput)
      }

  /** `--http`'s client warm-up on the worker's event loops ([[weir.http.WarmUp]]), before anything
    * is claimed: `plan.warmUp` requests to weir's own server at the worker's concurrency (over TLS
    * for an `https://` template, on its engine). None without `--http` or with `--warm-up 0`.
    */
  private def warmUp(plan: WorkerPlan, loops: Option[EventLoopGroup]): IO[Option[WarmUp]] =
    loops match
      case Some(group) if plan.warmUp > 0 =>
        val tls = plan.handler match
          case JobHandler.Http(_, _, _, _, true, tls) => Some(tls)
          case _                                      => None
        WarmUp.on[IO](group, plan.warmUp, plan.worker.limits.concurrency, tls).map(Some(_))
      case _ => IO.none

  /** With `--metrics HOST:PORT`, the worker's progress and the tally of its events
    * ([[WorkerTally]]) as Prometheus text at `/metrics`, the queue's depth read on `session`
    * (otherwise idle during the run) at each scrape.
    */
  private def metrics(
      plan: WorkerPlan,
      session: PgSession[IO],
      worker: Worker[IO]
  ): Resource[IO, Unit] =
    plan.metrics.fold(Resource.unit[IO]) { address =>
      for
        latest <- Resource.eval(IO.ref(Option.empty[Worker.Progress]))
        _ <- worker.progress.evalMap(p => latest.set(Some(p))).compile.drain.background
        tally <- WorkerTally.resource(worker)
        reading <- Resource.eval(Mutex[IO])
        // Several queues: labelled `mail,sms`, their depths summed (one statement per queue).
        depth = reading.lock
          .surround(
            plan.queue.queues.toList
              .traverse(QueueAdmin.depth(session, _, plan.queue.schema))
              .map(_.sum)
          )
          .attempt
        label = WorkerRender.queues(plan)
        page = (latest.get, tally.current, depth).mapN((p, t, d) =>
          PrometheusText(label, p, t, d.toOption)
        )
        _ <- MetricsServer.resource(address, page)
      yield ()
    }

  /** The worker's one-line warnings ([[WorkerWarnings]]) or, with `--log LEVEL`, its log
    * ([[weir.postgres.queue.WorkerLog]]) on stderr through a [[StderrLogger]].
    */
  private def logging(plan: WorkerPlan, worker: Worker[IO]): Resource[IO, Unit] =
    plan.log.fold(WorkerWarnings.resource(worker))(level =>
      WorkerLog.resource(worker, new StderrLogger(level))
    )

  /** With `--record-runs`, each attempt as it starts, in the run log ([[RunLog]], `weir.job_runs`)
    * under this process's id, which is what `weir queue torture` matches a worker's runs by.
    */
  private def recorder(plan: WorkerPlan): Resource[IO, Job => IO[Unit]] =
    if !plan.recordRuns then Resource.pure(_ => IO.unit)
    else
      RunLog
        .resource[IO](
          plan.target,
          ProcessHandle.current.pid.toString,
          plan.queue.reconnect,
          plan.queue.schema
        )
        .map(_.started)
