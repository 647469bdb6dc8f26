package weir.cli.queue

import cats.effect.{IO, Ref}
import cats.effect.std.Random
import cats.syntax.all.*
import java.nio.file.Path
import scala.concurrent.duration.*
import weir.postgres.PgSession

/** One run of `weir queue torture` (see [[TortureCommand]]): worker processes, the kills, the
  * pause, and the checks, all counted in the database through `session`.
  */
final class Torture(
    plan: TorturePlan,
    queue: String,
    session: PgSession[IO],
    log: Path,
    random: Random[IO]
):
  import Torture.*

  private def start: IO[WorkerProcess] =
    WorkerProcess.start(TortureCommand.workerArgs(plan, queue), plan.target.password, log)

  private def long(sql: String, params: String*): IO[Long] =
    session.query(sql, params*).map(_.headOption.flatMap(_.headOption).flatten.fold(0L)(_.toLong))

  // The claims a worker process holds now, as the database sees them: (id, attempt).
  private def held(pid: Long): IO[Vector[(Long, Int)]] =
    session
      .query(
        "SELECT id, attempt FROM weir.jobs WHERE queue = ? AND state = 'running' AND worker LIKE ?",
        queue,
        s"%:$pid:%"
      )
      .map(_.flatMap(r => (r(0), r(1)).mapN((i, a) => (i.toLong, a.toInt))))

  private val unfinished: IO[Long] =
    long("SELECT count(*) FROM weir.jobs WHERE queue = ? AND state <> 'completed'", queue)

  // Until none of `claims` is still running under the same attempt: the time that took.
  private def recovery(claims: Vector[(Long, Int)], from: FiniteDuration): IO[FiniteDuration] =
    if claims.isEmpty then IO.pure(Duration.Zero)
    else
      val ids = claims.map(_._1).mkString("{", ",", "}")
      val attempts = claims.map(_._2).mkString("{", ",", "}")
      val stillHeld = long(
        "SELECT count(*) FROM weir.jobs j JOIN unnest(?::bigint[], ?::integer[]) AS c(id, attempt) ON j.id = c.id AND j.attempt = c.attempt WHERE j.state = 'running'",
        ids,
        attempts
      )
      (IO.sleep(20.millis) >> stillHeld).iterateUntil(_ == 0) >> IO.monotonic.map(_ - from)

  def run: IO[Report] =
    for
      slots <- (1 to plan.workers).toVector
        .traverse(_ => start)
        .flatMap(Ref.of[IO, Vector[WorkerProcess]](_))
      began <- IO.monotonic
      kills <- Ref.of[IO, Vector[Kill]](Vector.empty)
      pauses <- Ref.of[IO, Vector[Kill]](Vector.empty)
      chaos = (1 to plan.kills).toList.traverse_ { k =>
        for
          _ <- random.betweenLong(300L, 1200L).flatMap(ms => IO.sleep(ms.millis))
          _ <- pause(slots, pauses).whenA(k == (plan.kills + 1) / 2)
          _ <- kill(slots, kills, k)
        yield ()
      }
      finished <- chaos >> (IO
        .sleep(100.millis) >> unfinished).iterateUntil(_ == 0).timeout(plan.limit).attempt
      took <- IO.monotonic.map(_ - began)
      workers <- slots.get
      exits <- workers.parTraverse(_.interrupt(20))
      ks <- kills.get
      ps <- pauses.get
      recoveries <- (ks ++ ps).parTraverse(k =>
        k.recovered.timeout(plan.limit).attempt.map(_.toOption)
      )
      lost <- unfinished
      jobs <- long("SELECT count(*) FROM weir.jobs WHERE queue = ?", queue)
      runs <- long(
        "SELECT count(*) FROM weir.job_runs r JOIN weir.jobs j ON j.id = r.job_id WHERE j.queue = ?",
        queue
      )
      unrun <- long(
        "SELECT count(*) FROM weir.jobs j WHERE j.queue = ? AND j.state = 'completed' AND NOT EXISTS (SELECT 1 FROM weir.job_runs r WHERE r.job_id = j.id AND r.attempt = j.attempt)",
        queue
      )
      refused <- long(
        "SELECT count(*) FROM weir.job_rejections x JOIN weir.jobs j ON j.id = x.job_id WHERE j.queue = ?",
        queue
      )
    yield Report(
      queue = queue,
      workers = plan.workers,
      jobs = jobs,
      seconds = took.toMillis / 1000.0,
      finished = finished.isRight,
      kills = ks.map(_.held.size),
      paused = ps.map(_.held.size),
      recoveryMillis = recoveries.map(_.map(_.toMillis)),
      lost = lost,
      completedWithoutRun = unrun,
      runs = runs,
      duplicates = math.max(0L, runs - jobs),
      bound = (ks ++ ps).map(_.held.size.toLong).sum,
      refusedLateWrites = refused,
      exitCodes = exits,
      log = log.toString,
      seed = plan.seed
    )

  // A random worker among those holding jobs (so that a kill hits one claiming, handling or
  // completing, not one still starting), waiting up to 5 s for one to hold some; else any.
  private def victim(slots: Ref[IO, Vector[WorkerProcess]]): IO[(Int, WorkerProcess)] =
    def look(tries: Int): IO[(Int, WorkerProcess)] =
      slots.get.flatMap { ws =>
        ws.zipWithIndex.filterA((w, _) => held(w.pid).map(_.nonEmpty)).flatMap { busy =>
          if busy.isEmpty && tries > 0 then IO.sleep(100.millis) >> look(tries - 1)
          else
            val pool = if busy.nonEmpty then busy.map(_._2) else ws.indices.toVector
            random.nextIntBounded(pool.size).map(k => (pool(k), ws(pool(k))))
        }
      }
    look(50)

  // SIGKILL a random worker; what it held is what it held a moment after (a statement it had sent
  // may still commit); a new worker takes its slot.
  private def kill(
      slots: Ref[IO, Vector[WorkerProcess]],
      kills: Ref[IO, Vector[Kill]],
      k: Int
  ): IO[Unit] =
    for
      picked <- victim(slots)
      (i, w) = picked
      before <- held(w.pid)
      _ <- w.kill
      at <- IO.monotonic
      _ <- IO.sleep(100.millis)
      after <- held(w.pid)
      claims = (before ++ after).distinct
      recovered <- recovery(after, at).start
      _ <- kills.update(_ :+ Kill(k, w.pid, claims, recovered.joinWithNever))
      fresh <- random.betweenLong(0L, 300L).flatMap(ms => IO.sleep(ms.millis)) >> start
      _ <- slots.update(_.updated(i, fresh))
    yield ()

  // SIGSTOP a random worker for twice the lease (its jobs go to others), then SIGCONT it: its late
  // completions must be refused.
  private def pause(
      slots: Ref[IO, Vector[WorkerProcess]],
      pauses: Ref[IO, Vector[Kill]]
  ): IO[Unit] =
    for
      picked <- victim(slots)
      w = picked._2
      before <- held(w.pid)
      _ <- w.pause
      at <- IO.monotonic
      _ <- IO.sleep(100.millis)
      after <- held(w.pid)
      recovered <- recovery(after, at).start
      _ <- IO.sleep(plan.lease * 2 + 1.second)
      _ <- w.resume
      _ <- pauses.update(_ :+ Kill(0, w.pid, (before ++ after).distinct, recovered.joinWithNever))
    yield ()

object Torture:

  /** A kill (or the pause, `k` 0): the victim, the claims it held, and its recovery. */
  final case class Kill(k: Int, pid: Long, held: Vector[(Long, Int)], recovered: IO[FiniteDuration])

  /** What a torture run found. `duplicates` are runs beyond one per job; `bound` the jobs that the
    * killed and paused workers held, which is as many as may run twice.
    */
  final case class Report(
      queue: String,
      workers: Int,
      jobs: Long,
      seconds: Double,
      finished: Boolean,
      kills: Vector[Int],
      paused: Vector[Int],
      recoveryMillis: Vector[Option[Long]],
      lost: Long,
      completedWithoutRun: Long,
      runs: Long,
      duplicates: Long,
      bound: Long,
      refusedLateWrites: Long,
      exitCodes: Vector[Int],
      log: String,
      seed: Long
  ):
    def passed: Boolean =
      finished && lost == 0 && completedWithoutRun == 0 && duplicates <= bound
