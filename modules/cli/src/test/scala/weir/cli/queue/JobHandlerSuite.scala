package weir.cli.queue

import cats.effect.IO
import cats.syntax.all.*
import com.monovore.decline.Command
import java.util.concurrent.ConcurrentLinkedQueue
import munit.CatsEffectSuite
import scala.concurrent.duration.*
import scala.jdk.CollectionConverters.*
import weir.engine.RetryPolicy
import weir.http.{Delay, DelayServer, ServerConfig}
import weir.postgres.{PgSession, PgTarget, TestPg}
import weir.postgres.queue.{Enqueue, NewJob, QueueSchema, QueueSettings, Worker, WorkerSettings}
import weir.{Attempts, Concurrency, NonNegativeDuration, PositiveDuration}

/** `weir worker`'s handlers end to end: jobs from a real PostgreSQL through a worker to weir's
  * delay server over real sockets (`--http`), and to real child processes (`--exec`).
  */
class JobHandlerSuite extends CatsEffectSuite:

  override def munitIOTimeout: Duration = 2.minutes

  private val settings = QueueSettings.default
    .withBackoff(
      RetryPolicy.exponential(Attempts(2), NonNegativeDuration.zero, NonNegativeDuration.zero)
    )
    .withPoll(PositiveDuration.millis(200))

  private def fresh(prefix: String): IO[PgTarget] =
    TestPg.database(prefix).flatTap(t => PgSession.open[IO](t).use(QueueSchema.migrate[IO]).void)

  private def count(db: PgTarget, sql: String): IO[Long] =
    PgSession.open[IO](db).use(_.query(sql)).map(_.head.head.get.toLong)

  // Runs one worker with `handler` until `done`, then stops it.
  private def drain(db: PgTarget, handler: JobHandler)(done: IO[Boolean]): IO[Worker.Report] =
    val engine = WorkerSettings.default.withConcurrency(Concurrency(8))
    (JobHandler.resource(handler, 10.seconds), Worker.resource[IO](db, settings, engine)).tupled
      .use { (handle, worker) =>
        val stopping = (IO.sleep(50.millis) >> done).iterateUntil(identity) >> worker.stop
        worker.run(handle).both(stopping).map(_._1)
      }

  // weir's delay server on a free port, answering after `delay`, with the ids it saw.
  private def counting(delay: Delay) =
    val seen = new ConcurrentLinkedQueue[Long]
    val server = DelayServer.resource[IO](
      ServerConfig.default.withPort(0).toOption.get.withDelay(delay).withListener(seen.add(_): Unit)
    )
    (seen, server)

  test(
    "--http: each payload fills {payload} in a GET to weir's delay server; 2xx completes the job"
  ) {
    val (seen, server) = counting(Delay.Fixed(Duration.Zero))
    for
      db <- fresh("http")
      _ <- PgSession
        .open[IO](db)
        .use(s => Enqueue.many(s, Vector.tabulate(300)(i => NewJob(i.toString))))
      report <- server.use { s =>
        val handler = JobHandler.http(s"http://127.0.0.1:${s.port}/{payload}").toOption.get
        drain(db, handler)(
          count(db, "SELECT count(*) FROM weir.jobs WHERE state = 'completed'").map(_ == 300)
        )
      }
    yield
      assertEquals(seen.asScala.toSet, (0L until 300L).toSet)
      assertEquals(report.counts.written.completed, 300)
  }

  test(
    "weir worker --http --until-empty, the whole command on its event loops: each job once, exit 0; the warm-up's requests went to weir's own server, not the target"
  ) {
    val (seen, server) = counting(Delay.Uniform(Duration.Zero, 5.millis))
    val worker = Command("worker", "")(WorkerOptions.opts(Map("PGHOST" -> "127.0.0.1")))
    for
      db <- fresh("httpcommand")
      _ <- PgSession
        .open[IO](db)
        .use(s => Enqueue.many(s, Vector.tabulate(500)(i => NewJob(i.toString))))
      code <- server.use { s =>
        val args = List(
          "--http",
          s"http://127.0.0.1:${s.port}/{payload}",
          "-c",
          "50",
          "--until-empty",
          "--no-live",
          "--format",
          "json",
          "--warm-up",
          "300"
        )
        val plan = worker.parse(args).fold(h => fail(h.errors.mkString("; ")), identity)
        WorkerCommand.run(plan.copy(target = db))
      }
      completed <- count(db, "SELECT count(*) FROM weir.jobs WHERE state = 'completed'")
    yield
      assertEquals(code, cats.effect.ExitCode.Success)
      assertEquals(seen.asScala.toList.sorted, (0L until 500L).toList)
      assertEquals(completed, 500L)
  }

  test(
    "--exec: the payload is one argument of a real process, no shell; a non-zero exit fails the attempt"
  ) {
    for
      db <- fresh("exec")
      _ <- PgSession
        .open[IO](db)
        .use(s =>
          Enqueue.many(
            s,
            Vector("1", "2", "3", "a b; exit 0").map(p => NewJob(p).withMaxAttempts(Attempts(1)))
          )
        )
      _ <- drain(db, JobHandler.Exec(List("test", "{}", "=", "1")))(
        count(db, "SELECT count(*) FROM weir.jobs WHERE state IN ('completed', 'discarded')").map(
          _ == 4
        )
      )
      completed <- PgSession
        .open[IO](db)
        .use(_.query("SELECT payload FROM weir.jobs WHERE state = 'completed'"))
      errors <- PgSession
        .open[IO](db)
        .use(_.query("SELECT DISTINCT last_error FROM weir.jobs WHERE state = 'discarded'"))
    yield
      // "a b; exit 0" is one argument to test(1), not shell syntax: it fails like 2 and 3.
      assertEquals(completed.flatten.flatten, Vector("1"))
      assertEquals(errors.flatten.flatten.map(_.takeWhile(_ != ':')), Vector("exit-1"))
  }

  test(
    "weir worker's summary says why attempts failed: by cause, as weir load counts errors (status-500 from the server, refused where nothing listens)"
  ) {
    val worker = Command("worker", "")(WorkerOptions.opts(Map("PGHOST" -> "127.0.0.1")))
    val failing = ServerConfig.default
      .withPort(0)
      .toOption
      .get
      .withDelay(Delay.Fixed(Duration.Zero))
      .withFaults(weir.http.Faults.of(1.0, 0, 0).toOption.get)
    // Two attempts each, retried at once: every job ends discarded, and --until-empty returns.
    def jobs(db: PgTarget, n: Int) = PgSession
      .open[IO](db)
      .use(s =>
        Enqueue.many(s, Vector.tabulate(n)(i => NewJob(i.toString).withMaxAttempts(Attempts(2))))
      )
    def run(db: PgTarget, template: String) =
      val args = List("--http", template, "--until-empty", "--no-live", "--warm-up", "0")
      val plan =
        worker.parse(args ++ List("--backoff", "1ms")).fold(h => fail(h.errors.mkString), identity)
      weir.cli.InProcess.capture(WorkerCommand.run(plan.copy(target = db)))
    for
      db <- fresh("causes")
      _ <- jobs(db, 10)
      first <- DelayServer
        .resource[IO](failing)
        .use(s => run(db, s"http://127.0.0.1:${s.port}/{payload}"))
      db2 <- fresh("refused")
      _ <- jobs(db2, 3)
      second <- run(db2, "http://127.0.0.1:1/{payload}")
    yield
      val ((code, out, _), (code2, out2, _)) = (first, second)
      assertEquals((code, code2), (cats.effect.ExitCode.Success, cats.effect.ExitCode.Success))
      assert(out.contains("failed attempts by cause: status-500 20 (HTTP 500)"), out)
      assert(out2.contains("failed attempts by cause: refused 6 ("), out2)
  }
