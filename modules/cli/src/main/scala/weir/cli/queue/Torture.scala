package weir.cli.queue

import cats.effect.{IO, Ref}
import cats.effect.std.Random
import cats.syntax.all.*
import java.nio.file.Path
import scala.concurrent.duration.*
import weir.postgres.PgSession
import weir.postgres.queue.{Job, QueueProbe}

/** One run of `weir queue torture` (see [[TortureCommand]]): worker processes, the kills (each
  * aimed by [[TortureAim]] at a [[Phase]], in turn claiming, handling, completing), the pause, and
  * the checks, all counted in the database through `session` ([[QueueProbe]]).
  *
  * '''Concurrency.''' One fiber kills and pauses, one victim at a time; the recovery after each
  * kill is watched by a fiber of its own. '''Errors.''' A failed query fails the run.
  */
final class Torture(
    plan: TorturePlan,
    queue: String,
    session: PgSession[IO],
    stall: PgSession[IO],
    log: Path,
    random: Random[IO],
    mix: TortureMix,
    cancels: PgSession[IO]
):
  import Torture.*

  private def start: IO[WorkerProcess] =
    WorkerProcess.start(TortureCommand.workerArgs(plan, queue), plan.target.password, log)

  // The claims a worker process holds now, as the database sees them.
  private def held(pid: Long): IO[Vector[Job.Claim]] = QueueProbe.held(session, queue, pid)

  private val unfinished: IO[Long] = QueueProbe.unfinished(session, queue)

  // Until none of `claims` is still running under the same attempt: the time that took.
  private def recovery(claims: Vector[Job.Claim], from: FiniteDuration): IO[FiniteDuration] =
    if claims.isEmpty then IO.pure(Duration.Zero)
    else
      val stillHeld = QueueProbe.stillRunning(session, claims)
      (IO.sleep(20.millis) >> stillHeld).iterateUntil(_ == 0) >> IO.monotonic.map(_ - from)

  private val aim = new TortureAim(session, stall, queue, random)

  /** The run: until every job has completed (or been cancelled by [[TortureMix]]), `plan.limit` has
    * passed or `stop` completes (Ctrl-C: the workers are then stopped gracefully, SIGINT, or at
    * once when `stopNow` completes too), then the checks. Cancelled, it SIGKILLs its worker
    * processes: none outlives it.
    */
  def run(stop: IO[Unit], stopNow: IO[Unit]): IO[TortureReport] =
    Ref.of[IO, Vector[WorkerProcess]](Vector.empty).flatMap { slots =>
      val killAll = slots.get.flatMap(_.parTraverse_(_.kill))
      (1 to plan.workers).toVector
        .traverse_(_ => IO.uncancelable(_ => start.flatMap(w => slots.update(_ :+ w))))
        .flatMap(_ => checked(slots, stop, stopNow))
        .onCancel(killAll)
    }

  private def checked(
      slots: Ref[IO, Vector[WorkerProcess]],
      stop: IO[Unit],
      stopNow: IO[Unit]
  ): IO[TortureReport] =
    for
      began <- IO.monotonic
      kills <- Ref.of[IO, Vector[Kill]](Vector.empty)
      chaos = (1 to plan.kills).toList.traverse_ { k =>
        for
          _ <- random.betweenLong(300L, 1200L).flatMap(ms => IO.sleep(ms.millis))
          _ <- pause(slots, kills).whenA(k == (plan.kills + 1) / 2)
          _ <- kill(slots, kills, k, Phase.fromOrdinal((k - 1) % Phase.values.length))
        yield ()
      }
      cancelled <- Ref.of[IO, Vector[Long]](Vector.empty)
      periods <- Ref.of[IO, Option[Vector[(Long, Long)]]](None)
      drained = (IO.sleep(100.millis) >> unfinished).iterateUntil(_ == 0)
      // The kills and the cancels, then the queue drained, two periods of the schedule at least,
      // the schedule ended (no period after it), and the queue drained of its last periods' jobs.
      unscheduled = mix.unschedule(cancels).flatMap(p => periods.set(Some(p)))
      twoPeriods = (IO.sleep(200.millis) >> mix.periods(cancels)).iterateUntil(_ >= 2)
      mixed = (chaos, mix.cancelling(cancels, plan.cancels).flatMap(cancelled.set)).parTupled >>
        drained >> twoPeriods >> unscheduled >> drained
      ended <- IO.race(stop, mixed.timeout(plan.limit).attempt)
      // Stopped or out of time: the schedule is ended all the same (none is left behind).
      _ <- periods.get.flatMap(p => unscheduled.attempt.void.whenA(p.isEmpty))
      finished = ended.exists(_.isRight)
      took <- IO.monotonic.map(_ - began)
      exits <- IO
        .race(stopNow, slots.get.flatMap(_.parTraverse(_.interrupt(20))))
        .flatMap(_.fold(_ => slots.get.flatMap(_.parTraverse(w => w.kill.as(137))), IO.pure))
      ks <- kills.get
      // Stopped early, nobody is left to take the jobs back: the recoveries are what they were.
      patience = if ended.isLeft then 50.millis else plan.limit
      recoveries <- ks.parTraverse(_.recovered.timeout(patience).attempt.map(_.toOption))
      done = ks
        .zip(recoveries)
        .map((k, r) => TortureReport.Kill(k.k, k.aimed, k.hit, k.held.size, r.map(_.toMillis)))
      phases <- (Phase.values.toVector.map(p => (p.label, p.some)) :+ ("paused", None))
        .traverse((name, aimed) => phase(name, ks.zip(done).filter(_._1.aimed == aimed), ks))
      all <- QueueProbe.tally(session, queue)
      mixed <- (cancelled.get, periods.get).flatMapN((c, p) =>
        mix.check(session, c, p.getOrElse(Vector.empty))
      )
    yield TortureReport(
      queue = queue,
      workers = plan.workers,
      jobs = all.jobs,
      seconds = took.toMillis / 1000.0,
      finished = finished,
      interrupted = ended.isLeft,
      kills = done,
      phases = phases,
      lost = all.unfinished,
      completedWithoutRun = all.completedWithoutRun,
      runs = all.runs,
      duplicates = all.duplicates,
      bound = ks.map(_.held.size.toLong).sum,
      refusedLateWrites = all.refusedWrites,
      exitCodes = exits,
      log = log.toString,
      seed = plan.seed,
      mix = mixed
    )

  // The invariants over the jobs held at the kills `of` (one phase's, or the pause). A job may
  // also have been held at kills of other phases (delivered again, and its new worker killed too):
  // each time it was held, at any kill of `all`, it may have run once more, so that is its bound.
  private def phase(
      name: String,
      of: Vector[(Kill, TortureReport.Kill)],
      all: Vector[Kill]
  ): IO[TortureReport.PhaseResult] =
    val mine = of.flatMap(_._1.held.map(_.id)).toSet
    QueueProbe
      .tally(session, mine)
      .map(t =>
        TortureReport.PhaseResult(
          name = name,
          kills = of.size,
          hits = of.count(_._1.hit),
          held = of.map(_._1.held.size.toLong).sum,
          bound = all.map(_.held.count(h => mine(h.id)).toLong).sum,
          lost = t.unfinished,
          completedWithoutRun = t.completedWithoutRun,
          duplicates = t.duplicates,
          recoveryMillis = of.flatMap(_._2.recoveryMillis).sorted,
          notRecovered = of.count(_._2.recoveryMillis.isEmpty)
        )
      )

  // A random worker among those holding jobs, waiting up to 5 s for one to hold some; else any.
  private def victim(slots: Ref[IO, Vector[WorkerProcess]]): IO[WorkerProcess] =
    def look(tries: Int): IO[WorkerProcess] =
      slots.get.flatMap { ws =>
        ws.filterA(w => held(w.pid).map(_.nonEmpty)).flatMap { busy =>
          if busy.isEmpty && tries > 0 then IO.sleep(100.millis) >> look(tries - 1)
          else
            val pool = if busy.nonEmpty then busy else ws
            random.nextIntBounded(pool.size).map(pool(_))
        }
      }
    look(50)

  // Whether a handler had started on one of `claims` in process `pid`: its run was recorded (a
  // worker records its runs under its process id, see WorkerCommand).
  private def handlerStarted(pid: Long, claims: Vector[Job.Claim]): IO[Boolean] =
    if claims.isEmpty then IO.pure(false)
    else QueueProbe.ranAny(session, pid.toString, claims)

  // SIGKILLs a worker found in `phase` (TortureAim.strike); when none is seen in it within 3 s
  // (busy workers claim and complete every few milliseconds: the queue has run dry), one holding
  // jobs, not a hit. Whether the kill hit the phase is looked at once the signal is sent
  // (TortureAim.confirm). What it held is what it held a moment after (a statement it had sent may
  // still commit); a new worker takes its slot. Waits first until two workers are up (twoUp).
  private def kill(
      slots: Ref[IO, Vector[WorkerProcess]],
      kills: Ref[IO, Vector[Kill]],
      k: Int,
      phase: Phase
  ): IO[Unit] =
    // Kills `w`: whether that hit `phase`, what it held just before, and when.
    def killing(w: WorkerProcess, target: Option[TortureAim.Target]) =
      for
        before <- held(w.pid)
        _ <- w.sigkill
        at <- IO.monotonic
        started <-
          if phase == Phase.Handling then handlerStarted(w.pid, before) else IO.pure(false)
        hit <- target.fold(IO.pure(false))(aim.confirm(_, started))
      yield (w, hit, before, at)
    for
      _ <- twoUp(slots)
      ws <- slots.get
      struck <- aim.strike(phase, ws.map(_.pid).toSet, 3.seconds) { target =>
        target.flatMap(t => ws.find(_.pid == t.process)).traverse(w => killing(w, target))
      }
      killed <- struck.fold(victim(slots).flatMap(killing(_, None)))(IO.pure)
      (w, hit, before, at) = killed
      _ <- w.gone
      _ <- IO.sleep(100.millis)
      after <- held(w.pid)
      recovered <- recovery(after, at).start
      _ <- kills.update(
        _ :+ Kill(k, Some(phase), hit, (before ++ after).distinct, recovered.joinWithNever)
      )
      _ <- random.betweenLong(0L, 300L).flatMap(ms => IO.sleep(ms.millis))
      // Started and put in its slot in one step: a stop never leaves a worker unaccounted for.
      _ <- IO.uncancelable(_ =>
        start.flatMap(fresh => slots.update(ws => ws.updated(ws.indexWhere(_.pid == w.pid), fresh)))
      )
    yield ()

  // Until two of the worker processes are up (their upkeep connections open: their schedulers
  // run), at most 60 s (JVMs starting on a loaded machine): a kill then always leaves one whose
  // scheduler runs (periods that no worker could enqueue are skipped by design).
  private def twoUp(slots: Ref[IO, Vector[WorkerProcess]]): IO[Unit] =
    val up = (
      slots.get,
      session.query(
        "SELECT application_name FROM pg_stat_activity WHERE application_name LIKE 'weir worker (upkeep) %'"
      )
    ).mapN { (ws, rows) =>
      val pids = rows
        .flatMap(_.headOption.flatten)
        .flatMap(_.split(' ').lastOption.flatMap(_.toLongOption))
        .toSet
      ws.count(w => pids(w.pid))
    }
    (IO.sleep(50.millis) >> up).iterateUntil(_ >= 2).timeout(60.seconds).attempt.void

  // SIGSTOPs a worker holding jobs for twice the lease (its jobs go to others), then SIGCONTs it:
  // its late completions must be refused.
  private def pause(slots: Ref[IO, Vector[WorkerProcess]], kills: Ref[IO, Vector[Kill]]): IO[Unit] =
    for
      w <- victim(slots)
      before <- held(w.pid)
      // Resumed whatever happens (a stop during the pause included): never left stopped.
      _ <- IO.uncancelable(poll =>
        w.pause >> poll(
          for
            at <- IO.monotonic
            _ <- IO.sleep(100.millis)
            after <- held(w.pid)
            recovered <- recovery(after, at).start
            _ <- IO.sleep(plan.lease * 2 + 1.second)
            _ <- kills.update(
              _ :+ Kill(0, None, false, (before ++ after).distinct, recovered.joinWithNever)
            )
          yield ()
        ).guarantee(w.resume)
      )
    yield ()

object Torture:

  /** A kill aimed at `aimed` (None: the pause, `k` 0), whether it hit it, the claims the victim
    * held, and its recovery.
    */
  final case class Kill(
      k: Int,
      aimed: Option[Phase],
      hit: Boolean,
      held: Vector[Job.Claim],
      recovered: IO[FiniteDuration]
  )
