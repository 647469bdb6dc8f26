package weir.cli.queue

import cats.effect.IO
import cats.syntax.all.*
import munit.CatsEffectSuite
import scala.concurrent.duration.*
import weir.postgres.{PgSession, PgTarget, TempPaths, TestPg}
import weir.postgres.queue.{Enqueue, NewJob, QueueSchema}

/** Crashes with real processes on a real PostgreSQL: `weir worker` JVMs SIGKILLed many times while
  * they drain thousands of jobs (weir queue torture's own run), and the server itself restarted
  * with `pg_ctl restart -m immediate` in the middle of a run. Counted in the database.
  */
class QueueCrashSuite extends CatsEffectSuite with TempPaths.Cleanup:

  override def munitIOTimeout: Duration = 4.minutes

  private def fresh(prefix: String): IO[PgTarget] =
    TestPg.database(prefix).flatTap(t => PgSession.open[IO](t).use(QueueSchema.migrate[IO]).void)

  // Workers of 4 jobs in flight, 5-15 ms a job, a 1 s lease: kills land among busy workers.
  private def torturing(db: PgTarget, workers: Int, jobs: Int, kills: Int, seed: Long) =
    TorturePlan(db, workers, jobs, kills, 4, 1.second, "5..15ms", 3.minutes, seed, false, 4)

  test(
    "kill -9, many times, of several worker processes, with kinds, a schedule and cancels: no job lost, no period skipped or doubled, duplicates within the jobs held at the kills"
  ) {
    val checked = for
      db <- fresh("torture")
      plan = torturing(db, workers = 3, jobs = 4000, kills = 8, seed = 13L)
      report <- PgSession.open[IO](db).use(s => TortureCommand.torture(plan, s))
      _ <- IO.println(TortureRender(report, json = false))
    yield
      assertEquals(report.kills.count(_.aimed.isDefined), 8, TortureRender(report, json = false))
      assertEquals(report.lost, 0L, TortureRender(report, json = false))
      assertEquals(report.completedWithoutRun, 0L, TortureRender(report, json = false))
      assert(report.duplicates <= report.bound, TortureRender(report, json = false))
      assert(report.runs >= report.jobs, TortureRender(report, json = false))
      assert(report.kills.count(_.held > 0) >= 4, TortureRender(report, json = false))
      // Every phase had its kills, and the invariants hold over the jobs held at each phase's.
      assertEquals(
        report.phases.map(p => (p.name, p.kills)),
        Vector("claiming" -> 3, "handling" -> 3, "completing" -> 2, "paused" -> 1),
        TortureRender(report, json = false)
      )
      assert(report.phases.forall(_.holds), TortureRender(report, json = false))
      // The server saw kills land in each phase: a claim or a completion still waiting for its
      // answer, or handlers running with no statement.
      assert(report.phases.take(3).forall(_.hits >= 1), TortureRender(report, json = false))
      // Kinds, schedule, cancels: each kind's jobs completed or cancelled, exactly the jobs
      // cancelled were, every period from the first to the last with one job.
      val mix = report.mix
      assertEquals(
        mix.kinds.map(k => (k.kind, k.jobs - k.completed - k.cancelled)),
        Vector("alpha" -> 0L, "beta" -> 0L, "gamma" -> 0L, "tick" -> 0L),
        TortureRender(report, json = false)
      )
      assertEquals(mix.kinds.take(3).map(_.jobs).sum, 4000L)
      assertEquals(mix.kinds.last.jobs, mix.periods.toLong, TortureRender(report, json = false))
      assertEquals(mix.kinds.map(_.cancelled).sum, mix.cancels.toLong)
      assert(mix.cancels >= 1 && mix.cancelledAsIntended, TortureRender(report, json = false))
      assertEquals(
        (mix.everyMillis, mix.skipped, mix.doubled, mix.withoutPeriod),
        (5000L, 0L, 0L, 0L),
        TortureRender(report, json = false)
      )
      assert(mix.periods >= 2, TortureRender(report, json = false))
      assert(report.passed, TortureRender(report, json = false))
      report
    checked.flatMap(deleteLog)
  }

  test(
    "a stopped torture (Ctrl-C) stops its worker processes, says it was interrupted, and fails"
  ) {
    def plan(db: PgTarget) = torturing(db, workers = 2, jobs = 200000, kills = 100, seed = 29L)
    // The workers' command lines name the torture's queue: torture-<this pid>-<seed>.
    val queue = s"torture-${ProcessHandle.current.pid}-29"
    val workersAlive = IO.blocking(
      ProcessHandle.allProcesses
        .filter(p => p.isAlive && p.info.arguments.map(_.contains(queue)).orElse(false))
        .count
    )
    val checked = for
      db <- fresh("stopped")
      // Stopped once the first kill has happened and its victim has been replaced.
      report <- PgSession.open[IO](db).use { s =>
        val firstKill = (IO.sleep(200.millis) >> s
          .query("SELECT count(DISTINCT worker) FROM weir.job_runs")
          .map(_.head.head.fold(0L)(_.toLong))).iterateUntil(_ > 2)
        TortureCommand.torture(plan(db), s, firstKill.void)
      }
      alive <- workersAlive
    yield
      assert(report.interrupted, TortureRender(report, json = false))
      assert(!report.passed)
      assert(TortureRender(report, json = false).contains("interrupted (Ctrl-C)"))
      assertEquals(alive, 0L)
      report
    checked.flatMap(deleteLog)
  }

  /** The workers' log, deleted once every assertion held (a failure's message names it: kept). */
  private def deleteLog(report: TortureReport): IO[Unit] =
    IO.blocking(java.nio.file.Files.deleteIfExists(java.nio.file.Paths.get(report.log))).void

  test("the schedule's missing periods: none before two starts (a torture stopped early)") {
    assertEquals(TortureMix.missing(Vector.empty, 1000), Vector.empty)
    assertEquals(TortureMix.missing(Vector(5000L), 1000), Vector.empty)
    assertEquals(TortureMix.missing(Vector(1000L, 2000L, 5000L), 1000), Vector(3000L, 4000L))
  }

  test(
    "PostgreSQL restarted with -m immediate in the middle of a run: the workers reconnect and no job is lost"
  ) {
    assume(
      TestPg.ownServer,
      "WEIR_PG_URL points at a server these tests do not own: not restarting it"
    )
    val n = 3000
    for
      db <- fresh("restart")
      _ <- PgSession
        .open[IO](db)
        .use(s => Enqueue.many(s, Vector.tabulate(n)(i => NewJob(i.toString))))
      log <- IO.blocking(tempPaths.file("weir-restart-", ".log"))
      args = List(
        "--url",
        db.uriWithoutPassword,
        "--sleep",
        "1..4ms",
        "-c",
        "4",
        "--lease",
        "2s",
        "--poll",
        "200ms",
        "--no-live",
        "--format",
        "json"
      )
      workers <- List.fill(2)(WorkerProcess.start(args, db.password, log)).sequence
      count = (sql: String) =>
        PgSession.open[IO](db).use(_.query(sql)).map(_.head.head.get.toLong).handleError(_ => -1L)
      before <- (IO.sleep(100.millis) >> count(
        "SELECT count(*) FROM weir.jobs WHERE state = 'completed'"
      ))
        .iterateUntil(_ >= n / 4)
      _ <- IO.blocking(TestPg.restartImmediate())
      after <- (IO.sleep(200.millis) >> count(
        "SELECT count(*) FROM weir.jobs WHERE state <> 'completed'"
      ))
        .iterateUntil(_ == 0)
        .timeout(2.minutes)
      codes <- workers.traverse(_.interrupt(20))
      completed <- count("SELECT count(*) FROM weir.jobs WHERE state = 'completed'")
      log <- IO.blocking(java.nio.file.Files.readString(log))
    yield
      assert(before < n, s"the restart came after the run: $before of $n done")
      assertEquals(after, 0L)
      assertEquals(completed, n.toLong)
      val lostConnections =
        "\"lostConnections\" : (\\d+)".r.findAllMatchIn(log).map(_.group(1).toInt).toList
      assertEquals(lostConnections.size, 2, log.takeRight(2000))
      assert(lostConnections.forall(_ > 0), log.takeRight(2000))
      assertEquals(codes, List(130, 130), log.takeRight(2000))
  }
