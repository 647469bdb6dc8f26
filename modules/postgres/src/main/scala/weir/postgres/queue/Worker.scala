package weir.postgres.queue

import cats.effect.{Async, Ref, Resource}
import cats.effect.std.Random
import cats.effect.syntax.all.*
import cats.syntax.all.*
import fs2.concurrent.SignallingRef
import fs2.Stream
import javax.sql.DataSource
import scala.concurrent.duration.*
import weir.engine.{Engine, Snapshot}
import weir.postgres.{PgSession, PgTarget}

/** A worker: the queue as a [[weir.Source]] of claimed [[Job]]s feeding one run of weir's
  * [[weir.engine.Engine]], each job's result acknowledged by the run's recorder (a completion or a
  * failure written back by the [[Completer]]), so every strategy, limit, timeout and statistic of
  * the engine applies to queue jobs. The engine's settings are built from [[WorkerSettings]], which
  * holds only what a worker honours (a failure never stops the run; the engine never retries inside
  * an attempt).
  *
  * '''Queues.''' A worker serves the queues of its [[QueueSettings.queues]], one or many, claiming
  * from each in turn, a batch at a time ([[ClaimLoop]], [[ClaimTurn]]): a queue with nothing to
  * claim (or paused) is looked at again at a notification for it or after the poll interval, so a
  * busy queue never starves another and an empty one costs one claim per poll interval. The jobs of
  * every queue share the engine's concurrency, the handler and the settings.
  *
  * '''Connections.''' Whatever the number of queues and kinds, a worker uses four connections at
  * most: `claim`, `ack` (completions, and the release at the end) and `upkeep` (heartbeat, reaper,
  * sweep, scheduler), each opened at its first statement and kept until the worker is released, and
  * `listen` (one `LISTEN` for all its queues), held while [[run]] runs. They are weir's own, opened
  * on a [[weir.postgres.PgTarget]] ([[Worker.resource]]), or borrowed from the application's
  * `DataSource` ([[Worker.fromDataSource]]) and held the same way: four at most taken from the
  * pool. Each is named `weir worker (role) pid` in `pg_stat_activity` ([[Worker.applicationName]]).
  *
  * Beside the run: a heartbeat renews the leases of the jobs held, the lease reaper and the
  * retention sweep keep the queue ([[WorkerUpkeep]], [[Maintenance]]), and [[Wake]] wakes the claim
  * loop when jobs arrive. Connections lost (a PostgreSQL restarted) are reopened with backoff, and
  * a statement that fails for another reason is tried again with backoff (see [[run]]); nothing is
  * lost: a job is only ever taken out of `running` by its completion, its failure, its release, the
  * reaper or a cancel. What happens is published as [[WorkerEvent]]s ([[events]], [[subscribe]]).
  *
  * '''Outcomes.''' A handler that returns completes its job; one that raises [[JobControl.Discard]]
  * discards it at once, not retried; [[JobControl.Snooze]] puts it off without using an attempt;
  * one that raises anything else (or times out) fails the attempt: the job is retried after the
  * backoff of [[QueueSettings.backoff]] until it has used its `maxAttempts`, then discarded.
  * [[JobHandlers]] builds a handler serving many [[JobKind]]s.
  *
  * '''Stopping.''' [[stop]] is the run's stop: claiming ends (the claim loop reads the run's
  * state); jobs in flight get [[WorkerSettings.stopGrace]]; then the completions are written and
  * the leases of every job still held (claimed but not started, or cut off by the grace period) are
  * released: available again at once, the attempt counted only if the handler had started; when the
  * server cannot be reached, this last step is given up after the lease (the leases then end on
  * their own). [[stopNow]] ends the grace period at once. A stop before [[run]] means the run
  * claims nothing. [[run]] returns after that with the [[Worker.Report]].
  *
  * '''Concurrency.''' [[stop]], [[stopNow]] and [[progress]] may be called from any fiber at any
  * time, any number of times; [[run]] once (a worker is one run).
  */
final class Worker[F[_]] private (
    listen: Resource[F, PgSession[F]],
    val id: String,
    settings: QueueSettings,
    parts: Worker.Parts[F]
)(using F: Async[F]):
  import parts.*
  private val held = new Held[F]
  private val keeper = new WorkerUpkeep[F](id, settings, held, upkeep, acks, counts, random, hub)
  private val claiming =
    new ClaimLoop[F](id, settings, held, claims, engine.state, counts, turn, keeper, hub)

  /** Stops claiming, lets jobs in flight finish (see [[Worker]]); idempotent, returns at once. */
  def stop: F[Unit] = engine.stop

  /** [[stop]], cutting the grace period short: jobs in flight are cancelled and released now. */
  def stopNow: F[Unit] = engine.stopNow

  /** The run's progress, sampled on its tick (see [[run]]): the engine's statistics (the rate and
    * recent latencies since the tick before), and the worker's counts and lost connections then.
    * Emits the latest sample, then each new one (a slow reader skips samples); nothing before the
    * run's first tick; never ends by itself.
    */
  def progress: Stream[F, Worker.Progress] = sampled.discrete.unNone

  /** The worker's [[WorkerEvent]]s from the moment this stream starts (see [[subscribe]], with a
    * buffer of [[Worker.eventBuffer]]); never ends by itself.
    */
  def events: Stream[F, WorkerEvent] = Stream.resource(subscribe()).flatten

  /** A subscription to the worker's [[WorkerEvent]]s that `only` accepts (all of them by default),
    * registered when the resource is acquired (so nothing published after that is missed) and ended
    * when it is released; its stream never ends by itself. Any number may subscribe, before or
    * during a run. A subscriber interested in a few kinds of event says so with `only` rather than
    * filtering the stream: the others then never take room in its buffer.
    *
    * '''A slow subscriber''' never slows the worker: each has a buffer of `buffer` events, and an
    * event that finds it full is dropped for that subscriber alone; the count of what it lost is
    * delivered as one [[WorkerEvent.Lagged]] before its next event. With nobody subscribed,
    * publishing costs one volatile read per event.
    */
  def subscribe(
      buffer: Int = Worker.eventBuffer,
      only: WorkerEvent => Boolean = _ => true
  ): Resource[F, Stream[F, WorkerEvent]] =
    hub.subscribe(buffer, only)

  /** Calls `f` on each of the worker's [[WorkerEvent]]s that `only` accepts, from the moment the
    * resource is acquired until it is released, in the fiber that publishes the event (a handler's,
    * the claim loop's, the completion writer's) before it goes on: for counters and histograms, as
    * a metrics library's synchronous instruments are, never for I/O or waiting. It costs no buffer,
    * no fiber and no wake-up per event, which a [[subscribe]]r pays; nothing is ever lost.
    *
    * '''Concurrency.''' `f` is called from many fibers at once: it must be thread-safe and quick.
    * '''Errors.''' What `f` throws is dropped; it never reaches the worker.
    */
  def listen(only: WorkerEvent => Boolean = _ => true)(f: WorkerEvent => Unit): Resource[F, Unit] =
    hub.listen(only, f)

  // How many times one of its connections was lost (and reopened) so far.
  private def lostConnections: F[Long] =
    (claims.lostConnections, acks.lostConnections, upkeep.lostConnections).mapN(_ + _ + _)

  /** Runs `handler` on the jobs of the worker's queues until [[stop]] (or, with `untilEmpty`, until
    * none of its queues has a job available, scheduled or running: its own last jobs written back,
    * and none of anyone's left to retry), then writes back and releases as [[Worker]] says; the
    * run's report. The run's [[progress]] is sampled every `tick`.
    *
    * A handler's error (or timeout) fails its job's attempt, never the run. A statement of the
    * worker that fails for another reason than a lost connection (a statement timeout, a lock, a
    * privilege missing for a while) is tried again with the backoff of [[QueueSettings.reconnect]]
    * and reported as a [[WorkerEvent.UpkeepError]]. The run fails with [[QueueError.LeasesLost]]
    * when the server has refused to renew the leases (errors, not a lost connection) for a whole
    * lease (it then stops claiming and interrupts its handlers: their jobs may already run
    * elsewhere), or with the completion writer's error if that dies. A server out of reach is
    * waited for, however long: once the heartbeat gets through again, the handlers of the jobs
    * whose leases were taken meanwhile are interrupted. A job that the heartbeat learns is no
    * longer held (cancelled in the queue, or its lease lost) has its handler interrupted
    * ([[WorkerEvent.Cancelled]]).
    *
    * Cancelling it cancels the handlers in flight; the completions are still written and the jobs
    * held released, as after a stop.
    */
  def run[B](
      handler: Job => F[B],
      untilEmpty: Boolean = false,
      tick: FiniteDuration = 1.second
  ): F[Worker.Report] =
    val listenLost = hub.publish(WorkerEvent.ConnectionLost("listen"))
    val wakeAndCompleter =
      Wake
        .resource(
          listen,
          settings.queues.toList.toSet,
          settings.poll,
          settings.reconnect,
          Some(listenLost),
          settings.schema
        )
        .flatMap { wake =>
          // Burning down, a written batch is what the claim loop waits for while it holds jobs.
          val completed = (cs: Seq[Job.Claim], w: Fenced.Written) =>
            F.delay(cs.foreach(held.remove)) >> counts
              .update(c => c.copy(written = c.written + w)) >>
              wake.poke.whenA(untilEmpty)
          Completer
            .resource(
              acks,
              id,
              settings.completionBatch,
              completed,
              keeper.persisting(UpkeepPart.Completion),
              hub,
              settings.schema
            )
            .tupleLeft(wake)
        }
    wakeAndCompleter.use { (wake, completer) =>
      val forget = (c: Job.Claim) => F.delay(held.remove(c))
      val acknowledged =
        new Acknowledger[F](completer, settings.backoff, random, hub, publish, forget)
      // None of these ends but with an error, which ends the run. Periodic jobs (Schedules): the
      // scheduler, beside the upkeep, on the upkeep connection.
      val scheduler = Scheduler.on(
        upkeep,
        settings.schema,
        (e, k) => hub.publish(WorkerEvent.UpkeepError(UpkeepPart.Scheduler, e, k))
      )
      val upkeeping =
        F.both(
          F.both(
            F.both(keeper.heartbeat, keeper.presence),
            F.both(keeper.reaper, completer.failure)
          ),
          scheduler.run
        ).void
      val source = claiming.source(wake, untilEmpty)
      val running = engine.runRecorded[Job, B](source, acknowledged, tick)(job =>
        Interruptible.run(held, hub, job, handler, jobTimeout)
      )
      val work = jobTimeout.fold(running)(JobDeadlines.watch(held, _).background.surround(running))
      // Bounded by the lease: with the server gone, what is held comes back when the leases end.
      val finishing = keeper.finish(completer).timeoutTo(settings.lease, F.unit).uncancelable
      F.race(upkeeping, work.guarantee(finishing)).flatMap {
        case Left(_) => F.raiseError(new IllegalStateException("the worker's upkeep ended"))
        case Right(snapshot) =>
          (counts.get, lostConnections).mapN((c, lost) => Worker.Report(id, snapshot, c, lost))
      }
    }

  // A tick's sample with the counts and lost connections then: what the live view reads.
  private def publish(snapshot: Snapshot): F[Unit] =
    (counts.get, lostConnections).mapN(Worker.Progress(snapshot, _, _)).flatMap { p =>
      sampled.set(Some(p))
    }

object Worker:

  /** The sweep runs once every this many reaper ticks (a minute at the default 1 s). */
  val sweepEveryReaps: Long = 60

  /** The events a subscriber's buffer holds by default ([[Worker.subscribe]]). */
  val eventBuffer: Int = 1024

  /** What a worker did, beside what it wrote ([[Fenced.Written]]); `claimedByQueue`: the jobs
    * claimed from each of its queues (a queue it has claimed none from is absent).
    */
  final case class Counts(
      claims: Long,
      claimedJobs: Long,
      lostLeases: Long,
      reapedAvailable: Long,
      reapedDiscarded: Long,
      swept: Long,
      releasedAtStop: Long,
      written: Fenced.Written,
      claimedByQueue: Map[String, Long] = Map.empty
  ):
    private[queue] def claimed(queue: String, n: Int): Counts =
      copy(
        claims = claims + 1,
        claimedJobs = claimedJobs + n,
        claimedByQueue =
          if n == 0 then claimedByQueue
          else claimedByQueue.updated(queue, claimedByQueue.getOrElse(queue, 0L) + n)
      )
    private[queue] def lost(n: Int): Counts = copy(lostLeases = lostLeases + n)
    private[queue] def reaped(r: Maintenance.Reaped): Counts =
      copy(
        reapedAvailable = reapedAvailable + r.available,
        reapedDiscarded = reapedDiscarded + r.discarded
      )
    private[queue] def swept(n: Long): Counts = copy(swept = swept + n)
    private[queue] def released(n: Int): Counts = copy(releasedAtStop = releasedAtStop + n)

  object Counts:
    val zero: Counts = Counts(0, 0, 0, 0, 0, 0, 0, Fenced.Written.none)

  /** A finished run: the worker, the engine's final statistics, its counts, and how many times a
    * connection was lost and reopened.
    */
  final case class Report(worker: String, engine: Snapshot, counts: Counts, lostConnections: Long)

  /** A run's progress at one of its ticks: the engine's statistics then (the rate and recent
    * latencies since the tick before), what the worker had done, and how many times a connection
    * was lost and reopened.
    */
  final case class Progress(engine: Snapshot, counts: Counts, lostConnections: Long)

  /** What a worker is made of: its run's engine, its three statement connections, what it keeps. */
  // `jobTimeout`: the worker's per-job timeout, kept out of the engine (see Interruptible).
  private final case class Parts[F[_]](
      engine: Engine[F],
      jobTimeout: Option[FiniteDuration],
      claims: QueueDb[F],
      acks: QueueDb[F],
      upkeep: QueueDb[F],
      random: Random[F],
      counts: Ref[F, Counts],
      turn: Ref[F, ClaimTurn],
      sampled: SignallingRef[F, Option[Progress]],
      hub: Events[F]
  )

  /** A name for this process as a worker: host, pid and a random suffix. */
  def defaultId: String =
    val host =
      try java.net.InetAddress.getLocalHost.getHostName
      catch case _: Exception => "localhost"
    s"$host:${ProcessHandle.current.pid}:${java.util.UUID.randomUUID.toString.take(8)}"

  /** The `application_name` of a worker's connection in `role` (claim, ack, upkeep, listen, runs):
    * `weir worker (claim) 12345`, the process id last, so that `pg_stat_activity` tells which
    * process a connection belongs to and what it is doing (`weir queue torture` aims its kills by
    * it).
    */
  def applicationName(role: String): String =
    s"weir worker ($role) ${ProcessHandle.current.pid}"

  /** A worker on `target`, on connections of its own (four at most: see [[Worker]]), for one run,
    * on an engine with `settings` (see [[WorkerSettings]]: the worker decides the error and retry
    * policies), serving the queues of `queue` ([[QueueSettings.queues]]). Releasing the resource
    * closes the connections; it does not stop a run in progress (cancel the run, or [[Worker.stop]]
    * it first).
    */
  def resource[F[_]: Async](
      target: PgTarget,
      queue: QueueSettings,
      settings: WorkerSettings = WorkerSettings.default,
      id: String = defaultId
  ): Resource[F, Worker[F]] =
    make(role => PgSession.open[F](target, applicationName(role)), queue, settings, id)

  /** A worker as [[resource]] makes, on connections borrowed from the application's `pool` (a
    * HikariCP `DataSource` over pgjdbc) instead of its own: four at most, each borrowed at its
    * first use and held until the worker is released (`listen` while it runs), then given back as
    * it was lent: while held, a connection runs in autocommit (whatever the pool's default) under
    * the worker's `application_name`; it is given back with its name restored and no `LISTEN` left.
    * The pool must hand out pgjdbc connections: acquiring the worker raises an
    * `IllegalArgumentException` otherwise (looked at on one connection, when one can be borrowed).
    * Held rather than borrowed per statement: claims and completions stay on one connection with
    * its prepared statements, as on weir's own, and the bound is exact. Size the pool for the
    * application plus four per worker: a worker waiting for a connection the pool cannot give (its
    * timeout) tries again with the backoff of [[QueueSettings.reconnect]], as it does for a server
    * out of reach. A connection lost (the server restarted, the backend terminated) is given back,
    * the pool evicting it, and another borrowed after that backoff; the statement is repeated on it
    * (every statement of the queue is safe to repeat). The pool's `maxLifetime` does not retire a
    * connection while the worker holds it (HikariCP retires it when it is given back).
    */
  def fromDataSource[F[_]: Async](
      pool: DataSource,
      queue: QueueSettings,
      settings: WorkerSettings = WorkerSettings.default,
      id: String = defaultId
  ): Resource[F, Worker[F]] =
    Resource.eval(PgSession.checkPool[F](pool)) >>
      make(role => PgSession.borrowed[F](pool, applicationName(role)), queue, settings, id)

  // The worker whose connections in each role `open` makes.
  private def make[F[_]: Async](
      open: String => Resource[F, PgSession[F]],
      queue: QueueSettings,
      settings: WorkerSettings,
      id: String
  ): Resource[F, Worker[F]] =
    val hub = new Events[F]
    def db(role: String) =
      val lost = hub.publish(WorkerEvent.ConnectionLost(role))
      QueueDb.opening[F](open(role), queue.reconnect, Some(lost))
    (db("claim"), db("ack"), db("upkeep")).tupled.evalMap { (claims, acks, upkeep) =>
      for
        // The per-job timeout is JobDeadlines' (one fiber, not a race per job): see there.
        engine <- Engine.create[F](settings.engine.withoutTaskTimeout)
        random <- Random.scalaUtilRandom[F]
        counts <- Ref.of[F, Counts](Counts.zero)
        turn <- Ref.of[F, ClaimTurn](
          ClaimTurn.start(queue.queues.toList.toVector, queue.poll)
        )
        sampled <- SignallingRef.of[F, Option[Progress]](None)
      yield new Worker(
        open("listen"),
        id,
        queue,
        Parts(
          engine,
          settings.taskTimeout,
          claims,
          acks,
          upkeep,
          random,
          counts,
          turn,
          sampled,
          hub
        )
      )
    }
