package weir.cli.queue

import cats.effect.IO
import cats.syntax.all.*
import munit.CatsEffectSuite
import scala.concurrent.duration.*
import weir.PositiveDuration
import weir.postgres.{PgSession, PgTarget, TempPaths, TestPg}
import weir.postgres.queue.{QueueSchema, Schedule, Schedules}

/** A `weir worker` process SIGKILLed at a period's boundary, on a real PostgreSQL: the schedule's
  * row is locked just before a boundary, so that the workers' `weir.enqueue_period` calls for it
  * wait on the lock; the worker seen waiting is killed there (its call's answer lost), the lock let
  * go, a new worker started. Counted in the database: every period from the first to the last has
  * exactly one job (none skipped, none doubled), every job of the schedule has a period, and every
  * one completed.
  */
class ScheduleCrashSuite extends CatsEffectSuite with TempPaths.Cleanup:

  override def munitIOTimeout: Duration = 2.minutes

  private val every = 2000L

  private def count(db: PgTarget, query: String): IO[Long] =
    PgSession.open[IO](db).use(_.query(query)).map(_.head.head.fold(0L)(_.toLong))

  // The process id of a worker whose scheduler's call waits on the schedule's lock, if any.
  private def waiting(s: PgSession[IO]): IO[Option[Long]] =
    s.query(
      """SELECT substring(application_name from '[)] ([0-9]+)$') FROM pg_stat_activity
        | WHERE application_name LIKE 'weir worker (upkeep)%' AND wait_event_type = 'Lock'
        |   AND query LIKE '%enqueue_period%'""".stripMargin
    ).map(_.flatMap(_.headOption.flatten).headOption.map(_.toLong))

  test(
    "a worker killed at a period boundary: no period skipped, none doubled, each job done once"
  ) {
    for
      db <- TestPg.database("schedcrash")
      _ <- PgSession.open[IO](db).use(QueueSchema.migrate[IO])
      tick = Schedule
        .every("tick", PositiveDuration.seconds(2), "t")
        .flatMap(_.withQueue("ticks"))
        .flatMap(_.withKind("tick"))
        .fold(e => fail(e.getMessage), identity)
      _ <- PgSession.open[IO](db).use(Schedules.add(_, tick))
      log <- IO.blocking(tempPaths.file("weir-schedcrash-", ".log"))
      args = List(
        "--url",
        db.uriWithoutPassword,
        "--queue",
        "ticks",
        "--sleep",
        "0..2ms",
        "--lease",
        "1s",
        "--poll",
        "200ms",
        "--record-runs",
        "--no-live",
        "--format",
        "json"
      )
      start = WorkerProcess.start(args, db.password, log)
      workers <- List.fill(2)(start).sequence
      periods = count(db, "SELECT count(*) FROM weir.schedule_periods WHERE name = 'tick'")
      // Both running: a period enqueued by one of them.
      _ <- (IO.sleep(100.millis) >> periods).iterateUntil(_ >= 1).timeout(60.seconds)
      // Just after a period is enqueued, the row is locked until a worker waits on it at the next
      // boundary; that worker is killed, then the lock let go.
      killed <- PgSession.open[IO](db).use { lock =>
        PgSession.open[IO](db).use { look =>
          val last = look
            .query("SELECT last_period::text FROM weir.schedules WHERE name = 'tick'")
            .map(_.head.head)
          for
            before <- last
            _ <- (IO.sleep(5.millis) >> last).iterateUntil(_ != before).timeout(10.seconds)
            _ <- lock.transaction(on = true)
            _ <- lock.query("SELECT 1 FROM weir.schedules WHERE name = 'tick' FOR UPDATE")
            pid <- (IO.sleep(2.millis) >> waiting(look))
              .iterateUntil(_.exists(p => workers.exists(_.pid == p)))
              .map(_.get)
              .timeout(10.seconds)
            w = workers.find(_.pid == pid).get
            _ <- w.kill
            at <- look
              .query(
                "SELECT (last_period + interval '2 seconds')::text FROM weir.schedules WHERE name = 'tick'"
              )
              .map(_.head.head.get)
            _ <- lock.rollback >> lock.transaction(on = false)
          yield (w, at)
        }
      }
      (victim, boundary) = killed
      replacement <- start
      alive = workers.filterNot(_.pid == victim.pid) :+ replacement
      // Three more periods after the one at the kill, then every tick job done.
      _ <- (IO.sleep(100.millis) >> count(
        db,
        s"SELECT count(*) FROM weir.schedule_periods WHERE name = 'tick' AND period_start > '$boundary'"
      )).iterateUntil(_ >= 3).timeout(30.seconds)
      _ <- (IO.sleep(100.millis) >> count(
        db,
        "SELECT count(*) FROM weir.jobs WHERE queue = 'ticks' AND state <> 'completed'"
      )).iterateUntil(_ == 0).timeout(30.seconds)
      codes <- alive.parTraverse(_.interrupt(20))
      recorded <- PgSession
        .open[IO](db)
        .use(
          _.query(
            """SELECT (extract(epoch FROM period_start) * 1000)::bigint, job_id
                       |  FROM weir.schedule_periods WHERE name = 'tick' ORDER BY period_start""".stripMargin
          )
        )
        .map(_.map(r => (r(0).get.toLong, r(1).get.toLong)))
      jobs <- PgSession
        .open[IO](db)
        .use(
          _.query("SELECT id FROM weir.jobs WHERE queue = 'ticks' AND kind = 'tick' ORDER BY id")
        )
        .map(_.map(_.head.get.toLong))
      atBoundary <- count(
        db,
        s"SELECT count(*) FROM weir.schedule_periods WHERE name = 'tick' AND period_start = '$boundary'"
      )
      unrun <- count(
        db,
        """SELECT count(*) FROM weir.jobs j WHERE j.queue = 'ticks' AND NOT EXISTS
          |  (SELECT 1 FROM weir.job_runs r WHERE r.job_id = j.id AND r.attempt = j.attempt)""".stripMargin
      )
      all <- count(db, "SELECT count(*) FROM weir.jobs")
      output <- IO.blocking(java.nio.file.Files.readString(log))
    yield
      val starts = recorded.map(_._1)
      val clue = s"periods $starts, jobs $jobs, kill at $boundary\n${output.takeRight(2000)}"
      // None skipped: consecutive starts, each on the grid; the one at the kill among them.
      assertEquals(starts.map(_ % every).distinct, Vector(0L), clue)
      assertEquals(starts.zip(starts.tail).map((a, b) => b - a).distinct, Vector(every), clue)
      assertEquals(atBoundary, 1L, clue)
      assert(starts.size >= 5, clue)
      // None doubled: one job per period, and no job of the schedule without its period.
      assertEquals(recorded.map(_._2).sorted, jobs, clue)
      assertEquals(all, jobs.size.toLong, clue)
      assertEquals(unrun, 0L, clue)
      assertEquals(codes, List(130, 130), clue)
  }
