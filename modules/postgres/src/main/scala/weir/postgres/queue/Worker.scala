package weir.postgres.queue

import cats.effect.{Async, Ref, Resource}
import cats.effect.std.Random
import cats.effect.syntax.all.*
import cats.syntax.all.*
import fs2.concurrent.SignallingRef
import fs2.{Chunk, Stream}
import scala.concurrent.duration.*
import weir.Source
import weir.engine.{Engine, RunState, Snapshot}
import weir.postgres.PgTarget

/** A worker: the queue as a [[weir.Source]] of claimed [[Job]]s feeding one run of weir's
  * [[weir.engine.Engine]], each job's result acknowledged by the run's recorder (a completion or a
  * failure written back by the [[Completer]]), so every strategy, limit, timeout and statistic of
  * the engine applies to queue jobs. The engine's settings are built from [[WorkerSettings]], which
  * holds only what a worker honours (a failure never stops the run; the engine never retries inside
  * an attempt).
  *
  * Beside the run: a heartbeat renews the leases of the jobs held, the lease reaper and the
  * retention sweep keep the queue ([[Maintenance]]), and [[Wake]] wakes the claim loop when jobs
  * arrive. Connections lost (a PostgreSQL restarted) are reopened with backoff, and a statement
  * that fails for another reason is tried again with backoff (see [[run]]); nothing is lost: a job
  * is only ever taken out of `running` by its completion, its failure, its release, the reaper or a
  * cancel. What happens is published as [[WorkerEvent]]s ([[events]], [[subscribe]]).
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
    target: PgTarget,
    val id: String,
    settings: QueueSettings,
    parts: Worker.Parts[F]
)(using F: Async[F]):
  import parts.*
  private val held = new Held[F]

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

  // How many times one of its connections was lost (and reopened) so far.
  private def lostConnections: F[Long] =
    (claims.lostConnections, acks.lostConnections, upkeep.lostConnections).mapN(_ + _ + _)

  /** Runs `handler` on the queue's jobs until [[stop]] (or, with `untilEmpty`, until the queue has
    * no job available, scheduled or running: its own last jobs written back, and none of anyone's
    * left to retry), then writes back and releases as [[Worker]] says; the run's report. The run's
    * [[progress]] is sampled every `tick`.
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
        .resource(target, settings.queue, settings.poll, settings.reconnect, Some(listenLost))
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
              persisting(UpkeepPart.Completion),
              hub
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
        (e, k) => hub.publish(WorkerEvent.UpkeepError(UpkeepPart.Scheduler, e, k))
      )
      val upkeeping =
        F.both(F.both(heartbeat, F.both(reaper, completer.failure)), scheduler.run).void
      val work = engine.runRecorded[Job, B](source(wake, untilEmpty), acknowledged, tick)(job =>
        Interruptible.run(held, hub, job, handler)
      )
      // Bounded by the lease: with the server gone, what is held comes back when the leases end.
      val finishing = finish(completer).timeoutTo(settings.lease, F.unit).uncancelable
      F.race(upkeeping, work.guarantee(finishing)).flatMap {
        case Left(_) => F.raiseError(new IllegalStateException("the worker's upkeep ended"))
        case Right(snapshot) =>
          (counts.get, lostConnections).mapN((c, lost) => Worker.Report(id, snapshot, c, lost))
      }
    }

  // `fa` tried again after a backoff while it fails, each failure published as `part`'s, then
  // given to `also` (which may end the retries by raising).
  private def persisting[A](part: UpkeepPart, also: Throwable => F[Unit] = _ => F.unit)(
      fa: F[A]
  ): F[A] =
    Backoff.persisting(
      settings.reconnect,
      random,
      (k, e, _) => hub.publish(WorkerEvent.UpkeepError(part, e, k)) >> also(e)
    )(fa)

  // A tick's sample with the counts and lost connections then: what the live view reads.
  private def publish(snapshot: Snapshot): F[Unit] =
    (counts.get, lostConnections).mapN(Worker.Progress(snapshot, _, _)).flatMap { p =>
      sampled.set(Some(p))
    }

  // The claim loop: a batch at a time, as the engine pulls; idle, it waits for a wake-up.
  private def source(wake: Wake[F], untilEmpty: Boolean): Source[F, Job] =
    val next: F[Option[Chunk[Job]]] =
      // The run's own state says when to stop claiming: nothing is claimed once it has left Running.
      def loop: F[Option[Chunk[Job]]] = engine.state.flatMap {
        case s if s != RunState.Running => F.pure(None)
        case _ =>
          claimed.flatMap { jobs =>
            if jobs.nonEmpty then F.pure(Some(Chunk.from(jobs)))
            else if !untilEmpty then wake.next >> loop
            // Its own last jobs may still fail and come back: look again once a batch of them is
            // written (the completer then pokes the wake-up), at a notification, or at the poll.
            else if held.size > 0 then wake.next >> loop
            else
              persisting(UpkeepPart.Claim)(claims.use(c => Claimer.pending(c, settings.queue)))
                .flatMap(pending => if pending then wake.next >> loop else F.pure(None))
          }
      }
      loop
    Source.single(Stream.repeatEval(next).unNoneTerminate.unchunks)

  // One claim from where the cursor says (see ClaimCursor), repeated from the beginning when it
  // started after the cursor and found nothing. Each statement and the recording of its answer as
  // held are one uncancelable step (a stop never loses a claim's answer: what is held is released
  // at the end); the waits before trying a failed statement again are not.
  private val claimed: F[Vector[Job]] =
    def claim(after: Option[Claimer.Position]): F[Vector[Job]] =
      persisting(UpkeepPart.Claim)(F.uncancelable { _ =>
        claims
          .use(c =>
            Claimer.claim(c, settings.queue, settings.claimBatch, settings.lease, id, after)
          )
          .timed
          .flatTap((_, jobs) => F.delay(held.add(jobs)) >> counts.update(_.claimed(jobs.size)))
      }).flatMap((took, js) => hub.publish(WorkerEvent.Claimed(js, took)).whenA(js.nonEmpty).as(js))
    for
      now <- F.monotonic
      from <- cursor.get.map(_.after(now))
      first <- claim(from)
      retried <- if first.isEmpty && from.isDefined then claim(None).map(Some(_)) else F.pure(None)
      jobs = retried.getOrElse(first)
      _ <- cursor.update(_.advanced(if retried.isDefined then None else from, jobs, now))
    yield jobs

  // On the upkeep connection, between the reaper's statements (a sweep is a statement per batch),
  // so that completions never wait behind a renewal on the acks connection. Each beat renews what
  // is held, tried again while it fails. An error the server answers with, once no
  // renewal has gone through for a whole lease (counted from the start of the last one that did),
  // ends the run: the leases may be gone and the jobs claimed again elsewhere (LeasesLost). A lost
  // connection is only waited out (QueueDb reopens it: no one else can reach the server meanwhile
  // either), as is a statement waiting on a lock; once a renewal goes through, the jobs whose
  // leases were taken meanwhile are interrupted.
  private def heartbeat: F[Unit] =
    def beat(renewed: FiniteDuration): F[Unit] =
      F.sleep(settings.heartbeat) >> F.monotonic.flatMap { now =>
        val current = held.current
        val gone = (e: Throwable) =>
          F.monotonic.flatMap { t =>
            F.raiseError[Unit](
              QueueError.LeasesLost(id, settings.lease.toCoarsest.toString, QueueError.oneLine(e))
            ).whenA(t - renewed >= settings.lease)
          }
        if current.isEmpty then beat(now)
        else
          persisting(UpkeepPart.Heartbeat, gone)(
            upkeep.use(c => Fenced.renew(c, current, settings.lease))
          ).flatMap(interrupt) >> beat(now)
      }
    F.monotonic.flatMap(beat)

  // Jobs no longer running under this worker's claim: forgotten, their handlers interrupted, each
  // published with why (one look at their rows, only when some are gone).
  private def interrupt(ids: Set[Long]): F[Unit] =
    F.delay(ids.toVector.flatMap(held.lose)).flatMap { gone =>
      if gone.isEmpty then F.unit
      else
        counts.update(_.lost(gone.size)) >>
          upkeep.use(c => Fenced.cancelled(c, gone.map(_._1.id))).attempt.flatMap { cancelled =>
            gone.traverse_ { (job, interrupt) =>
              val why =
                if cancelled.exists(_.contains(job.id)) then CancelReason.CancelledInQueue
                else CancelReason.LeaseLost
              interrupt.sequence_ >> hub.publish(WorkerEvent.Cancelled(job, why))
            }
          }
    }

  private def reaper: F[Unit] =
    def tick(n: Long): F[Unit] =
      F.sleep(settings.reapEvery) >>
        persisting(UpkeepPart.Reaper)(upkeep.use(c => Maintenance.reap(c, 1000)))
          .flatMap(r => counts.update(_.reaped(r))) >>
        sweep.whenA(n % Worker.sweepEveryReaps == 0) >>
        tick(n + 1)
    tick(1)

  // The retention sweep, a batch per statement (the heartbeat renews between two), until a batch
  // comes back short.
  private def sweep: F[Unit] =
    val batch = persisting(UpkeepPart.Sweep)(
      upkeep.use(c =>
        Maintenance.sweepBatch(c, settings.retention, settings.retentionBatch, settings.archive)
      )
    ).flatTap(n => counts.update(_.swept(n.toLong)))
    batch.iterateWhile(_ >= settings.retentionBatch).void

  // After the run: completions written, then everything still held given back at once.
  private def finish(completer: Completer[F]): F[Unit] =
    completer.drain.attempt.flatMap { drained =>
      F.delay(held.takeAll).flatMap { rest =>
        acks
          .once(c => Fenced.release(c, rest, id))
          .flatMap(n => counts.update(_.released(n)))
          .attempt
          .void
      } >> drained.liftTo[F]
    }

object Worker:

  /** The sweep runs once every this many reaper ticks (a minute at the default 1 s). */
  val sweepEveryReaps: Long = 60

  /** The events a subscriber's buffer holds by default ([[Worker.subscribe]]). */
  val eventBuffer: Int = 1024

  /** What a worker did, beside what it wrote ([[Fenced.Written]]). */
  final case class Counts(
      claims: Long,
      claimedJobs: Long,
      lostLeases: Long,
      reapedAvailable: Long,
      reapedDiscarded: Long,
      swept: Long,
      releasedAtStop: Long,
      written: Fenced.Written
  ):
    private[queue] def claimed(n: Int): Counts =
      copy(claims = claims + 1, claimedJobs = claimedJobs + n)
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

  /** What a worker is made of: its run's engine, its three connections, what it keeps. */
  private final case class Parts[F[_]](
      engine: Engine[F],
      claims: QueueDb[F],
      acks: QueueDb[F],
      upkeep: QueueDb[F],
      random: Random[F],
      counts: Ref[F, Counts],
      cursor: Ref[F, ClaimCursor],
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

  /** A worker on `target` (three connections, and one listening while it runs) for one run, on an
    * engine with `settings` (see [[WorkerSettings]]: the worker decides the error and retry
    * policies). Releasing the resource closes the connections; it does not stop a run in progress
    * (cancel the run, or [[Worker.stop]] it first).
    */
  def resource[F[_]: Async](
      target: PgTarget,
      queue: QueueSettings,
      settings: WorkerSettings = WorkerSettings.default,
      id: String = defaultId
  ): Resource[F, Worker[F]] =
    val hub = new Events[F]
    def db(role: String) =
      val lost = hub.publish(WorkerEvent.ConnectionLost(role))
      QueueDb.resource[F](target, applicationName(role), queue.reconnect, Some(lost))
    (db("claim"), db("ack"), db("upkeep")).tupled.evalMap { (claims, acks, upkeep) =>
      for
        engine <- Engine.create[F](settings.engine)
        random <- Random.scalaUtilRandom[F]
        counts <- Ref.of[F, Counts](Counts.zero)
        cursor <- Ref.of[F, ClaimCursor](ClaimCursor.start(ClaimCursor.restartEvery))
        sampled <- SignallingRef.of[F, Option[Progress]](None)
      yield new Worker(
        target,
        id,
        queue,
        Parts(engine, claims, acks, upkeep, random, counts, cursor, sampled, hub)
      )
    }
