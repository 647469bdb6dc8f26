package weir.postgres.queue

import cats.effect.{Async, Ref, Resource}
import cats.effect.std.Random
import cats.effect.syntax.all.*
import cats.syntax.all.*
import fs2.{Chunk, Stream}
import scala.concurrent.duration.*
import weir.Source
import weir.engine.{
  Engine,
  FailureClass,
  EngineSettings,
  ErrorPolicy,
  RetryPolicy,
  RunState,
  Snapshot,
  TaskOutcome,
  TaskResult
}
import weir.postgres.PgTarget

/** A worker: the queue as a [[weir.Source]] of claimed [[Job]]s feeding weir's one
  * [[weir.engine.Engine]], and the engine's results written back as completions and failures
  * ([[Completer]]), so every strategy, limit, timeout and statistic of the engine applies to queue
  * jobs.
  *
  * Beside the run: a heartbeat renews the leases of the jobs held, the lease reaper and the
  * retention sweep keep the queue ([[Maintenance]]), and [[Wake]] wakes the claim loop when jobs
  * arrive. Connections lost (a PostgreSQL restarted) are reopened with backoff; nothing is lost: a
  * job is only ever taken out of `running` by its completion, its failure, its release or the
  * reaper.
  *
  * '''Outcomes.''' A handler that returns completes its job; one that raises (or times out) fails
  * the attempt: the job is retried after the backoff of [[QueueSettings.backoff]] until it has used
  * its `maxAttempts`, then discarded. Failures never stop the run ([[weir.engine.ErrorPolicy.Skip]]
  * is forced), and the engine never retries inside an attempt (its retry policy is switched off).
  *
  * '''Stopping.''' [[stop]] stops claiming; jobs in flight get the engine's grace period
  * ([[weir.engine.EngineSettings.stopGrace]]); then the completions are written and the leases of
  * every job still held (claimed but not started, or cut off by the grace period) are released:
  * available again at once, the attempt counted only if the handler had started; when the server
  * cannot be reached, this last step is given up after the lease (the leases then end on their
  * own). [[stopNow]] ends the grace period at once. [[run]] returns after that with the
  * [[Worker.Report]].
  */
final class Worker[F[_]] private (
    target: PgTarget,
    val id: String,
    settings: QueueSettings,
    val engine: Engine[F],
    claims: QueueDb[F],
    acks: QueueDb[F],
    upkeep: QueueDb[F],
    random: Random[F],
    counts: Ref[F, Worker.Counts],
    cursor: Ref[F, ClaimCursor]
)(using F: Async[F]):
  private val held = new Held

  /** Stops claiming and lets jobs in flight finish (see [[Worker]]); idempotent. */
  def stop: F[Unit] = engine.stop

  /** [[stop]], cutting the grace period short: jobs in flight are cancelled and released now. */
  def stopNow: F[Unit] = engine.stopNow

  /** The engine's live statistics (see [[weir.engine.Engine.snapshots]]). */
  def snapshots(every: FiniteDuration): Stream[F, Snapshot] = engine.snapshots(every)

  /** What the worker has done so far (claims, writes, releases, upkeep). */
  def done: F[Worker.Counts] = counts.get

  /** How many times one of its connections was lost (and reopened) so far. */
  def lostConnections: F[Long] =
    (claims.lostConnections, acks.lostConnections, upkeep.lostConnections).mapN(_ + _ + _)

  /** Runs `handler` on the queue's jobs until [[stop]] (or, with `untilEmpty`, until the queue has
    * no job available, scheduled or running: its own last jobs written back, and none of anyone's
    * left to retry), then writes back and releases as [[Worker]] says; the run's report.
    */
  def run[B](handler: Job => F[B], untilEmpty: Boolean = false): F[Worker.Report] =
    val completed = (cs: Seq[Job.Claim], w: Fenced.Written) =>
      F.delay(cs.foreach(held.remove)) >> counts.update(c => c.copy(written = c.written + w))
    (
      Completer.resource(acks, id, settings.completionBatch, completed),
      Wake.resource(target, settings.queue, settings.poll, settings.reconnect)
    ).tupled.use { (completer, wake) =>
      val upkeeping = F.both(heartbeat, reaper).void
      val work = engine.runTo(source(wake, untilEmpty))(job =>
        F.delay(held.started(job)) >> handler(job)
      )(sink(completer))
      // Bounded by the lease: with the server gone, what is held comes back when the leases end.
      val finishing = finish(completer).timeoutTo(settings.lease, F.unit).uncancelable
      upkeeping.background.surround(work.guarantee(finishing)).flatMap { snapshot =>
        (counts.get, lostConnections).mapN((c, lost) => Worker.Report(id, snapshot, c, lost))
      }
    }

  // The claim loop: a batch at a time, as the engine pulls; idle, it waits for a wake-up.
  private def source(wake: Wake[F], untilEmpty: Boolean): Source[F, Job] =
    val next: F[Option[Chunk[Job]]] =
      // The run's own state says when to stop claiming: nothing is claimed once it has left Running.
      def loop: F[Option[Chunk[Job]]] = engine.state.flatMap {
        case s if s != RunState.Running => F.pure(None)
        case _                          =>
          // Claimed and recorded in one uncancelable step: a stop never loses a claim's answer.
          F.uncancelable(_ => claimed).flatMap { jobs =>
            if jobs.nonEmpty then F.pure(Some(Chunk.from(jobs)))
            else if !untilEmpty then wake.next >> loop
            // Its own last jobs may still fail and come back: look again once they are written.
            else if held.size > 0 then F.sleep(20.millis) >> loop
            else
              claims.use(c => Claimer.pending(c, settings.queue)).flatMap { pending =>
                if pending then wake.next >> loop else F.pure(None)
              }
          }
      }
      loop
    Source.single(Stream.repeatEval(next).unNoneTerminate.unchunks)

  // One claim from where the cursor says (see ClaimCursor), repeated from the beginning when it
  // started after the cursor and found nothing; each answer recorded as held at once.
  private val claimed: F[Vector[Job]] =
    def claim(after: Option[Claimer.Position]): F[Vector[Job]] =
      claims
        .use(c => Claimer.claim(c, settings.queue, settings.claimBatch, settings.lease, id, after))
        .flatTap(jobs => F.delay(held.add(jobs)) >> counts.update(_.claimed(jobs.size)))
    for
      now <- F.monotonic
      from <- cursor.get.map(_.after(now))
      first <- claim(from)
      retried <- if first.isEmpty && from.isDefined then claim(None).map(Some(_)) else F.pure(None)
      jobs = retried.getOrElse(first)
      _ <- cursor.update(_.advanced(if retried.isDefined then None else from, jobs, now))
    yield jobs

  private def sink[B](completer: Completer[F])(r: TaskResult[Job, B]): F[Unit] =
    val claim = r.task.claim
    def failed(error: String) =
      Backoff.draw(settings.backoff, random, claim.attempt).flatMap { delay =>
        completer.fail(Fenced.Failure(claim, error, delay))
      }
    r.outcome match
      case TaskOutcome.Succeeded(_) => completer.complete(claim)
      case TaskOutcome.Failed(e) =>
        failed(
          Option(e.getMessage).fold(FailureClass.of(e).label)(m =>
            s"${FailureClass.of(e).label}: $m"
          )
        )
      case TaskOutcome.TimedOut(after) => failed(s"timed out after $after")
      case TaskOutcome.NotStarted      => F.unit // released at the end

  // On the acks connection: the upkeep one may be busy with a long retention sweep.
  private def heartbeat: F[Unit] =
    (F.sleep(settings.heartbeat) >> F.delay(held.current).flatMap { current =>
      acks
        .use(c => Fenced.renew(c, current, settings.lease))
        .flatMap(lost => F.delay(lost.count(held.removeAny)).flatMap(n => counts.update(_.lost(n))))
        .whenA(current.nonEmpty)
    }).foreverM

  private def reaper: F[Unit] =
    def tick(n: Long): F[Unit] =
      F.sleep(settings.reapEvery) >>
        upkeep.use(c => Maintenance.reap(c, 1000)).flatMap(r => counts.update(_.reaped(r))) >>
        upkeep
          .use(c =>
            Maintenance.sweep(c, settings.retention, settings.retentionBatch, settings.archive)
          )
          .flatMap(n => counts.update(_.swept(n)))
          .whenA(n % Worker.sweepEveryReaps == 0) >>
        tick(n + 1)
    tick(1)

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

  /** A worker on `target` (three connections, and one listening while it runs), with `engine` for
    * the run. Two of `engine`'s settings are replaced: its error policy by
    * [[weir.engine.ErrorPolicy.Skip]] (a failure fails the attempt, never the run) and its retry
    * policy by [[weir.engine.RetryPolicy.none]] (the queue retries a failed attempt as a new
    * attempt after the job's backoff, up to its `maxAttempts`; retrying inside an attempt too would
    * multiply the attempts and outlive the lease). Releasing the resource closes them; it does not
    * stop a run in progress (cancel the run, or [[Worker.stop]] it first).
    */
  def resource[F[_]: Async](
      target: PgTarget,
      settings: QueueSettings,
      engine: EngineSettings,
      id: String = defaultId
  ): Resource[F, Worker[F]] =
    def db(role: String) = QueueDb.resource[F](target, applicationName(role), settings.reconnect)
    (db("claim"), db("ack"), db("upkeep")).tupled.evalMap { (claims, acks, upkeep) =>
      for
        e <- Engine.create[F](engine.withErrorPolicy(ErrorPolicy.Skip).withRetry(RetryPolicy.none))
        random <- Random.scalaUtilRandom[F]
        counts <- Ref.of[F, Counts](Counts.zero)
        cursor <- Ref.of[F, ClaimCursor](ClaimCursor.start(ClaimCursor.restartEvery))
      yield new Worker(
        target,
        id,
        settings,
        e,
        claims,
        acks,
        upkeep,
        random,
        counts,
        cursor
      )
    }
