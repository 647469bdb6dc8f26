package weir.postgres.queue

import cats.effect.IO
import munit.CatsEffectSuite
import scala.concurrent.duration.*
import weir.postgres.PgSession
import weir.Attempts

/** [[WorkerLog]]: a real worker's run on the test PostgreSQL logged through a log4cats logger at
  * debug, every line asserted (a job that succeeds, one that fails once then succeeds, one that
  * fails its only attempt and is discarded, one its handler discards); the levels of the upkeep's
  * events, without a database.
  */
class WorkerLogSuite extends CatsEffectSuite:
  import QueueDbs.*
  import Faults.*
  import WorkerLog.{Entry, Level}

  override def munitIOTimeout: Duration = 2.minutes

  private val quick = quickQueue()
  private val engine = smallEngine

  private def kinded(kind: String, payload: String): NewJob =
    NewJob(payload).withKind(kind).fold(throw _, identity)

  // A line without its timings (asserted apart: present, a number), its error as its message.
  private def plain(e: Entry): (Level, String, Map[String, String], Option[String]) =
    (e.level, e.message, e.context - "duration_ms", e.error.map(_.getMessage))

  test("a real run at debug: each job's outcome logged once, with its context; claims summed") {
    for
      db <- fresh("workerlog")
      ids <- PgSession.open[IO](db).use { s =>
        for
          ok <- Enqueue.one(s, kinded("email", "ok"))
          flaky <- Enqueue.one(s, kinded("email", "flaky"))
          huge <- Enqueue.one(s, kinded("resize", "huge").withMaxAttempts(Attempts(1)))
          no <- Enqueue.one(s, kinded("resize", "no"))
        yield List(ok, flaky, huge, no).map(_.id)
      }
      logger <- RecordingLogger(Level.Debug)
      tooLarge = new RuntimeException("too large")
      handler = (j: Job) =>
        j.payload match
          case "flaky" if j.attempt == 1 => IO.raiseError(new RuntimeException("once"))
          case "huge"                    => IO.raiseError(tooLarge)
          case "no"                      => IO.raiseError(JobControl.Discard("not wanted"))
          case _                         => IO.unit
      _ <- Worker.resource[IO](db, quick, engine, id = "w1").use { w =>
        WorkerLog
          .resource(w, logger)
          .surround(
            w.run(handler, untilEmpty = true).timeout(1.minute) >>
              waitUntil("six lines about jobs")(
                logger.logged.map(_.count(_.context.contains("job_id")) == 6)
              )
          )
      }
      lines <- logger.logged
    yield
      val List(ok, flaky, huge, no) = ids.map(_.toString): @unchecked
      def job(id: String, kind: String, attempt: Int, max: Int) = Map(
        "worker" -> "w1",
        "queue" -> "default",
        "kind" -> kind,
        "job_id" -> id,
        "attempt" -> attempt.toString,
        "max_attempts" -> max.toString
      )
      val max: Int = NewJob("x").maxAttempts
      val (claims, jobs) = lines.partition(_.message == "claimed jobs")
      assertEquals(
        jobs.map(plain).sortBy(l => (l._3("job_id").toLong, l._3("attempt"), l._2)),
        Vector(
          (Level.Debug, "job succeeded", job(ok, "email", 1, max), None),
          (
            Level.Info,
            "job attempt failed, retrying",
            job(flaky, "email", 1, max) + ("retry_in_ms" -> "0.000"),
            Some("once")
          ),
          (Level.Debug, "job succeeded", job(flaky, "email", 2, max), None),
          (
            Level.Warn,
            "job discarded",
            job(huge, "resize", 1, 1) + ("reason" -> "RuntimeException: too large"),
            None
          ),
          (
            Level.Info,
            "job attempt failed, none left",
            job(huge, "resize", 1, 1),
            Some("too large")
          ),
          (
            Level.Warn,
            "job discarded",
            job(no, "resize", 1, max) + ("reason" -> "not wanted"),
            None
          )
        ).sortBy(l => (l._3("job_id").toLong, l._3("attempt"), l._2))
      )
      // Succeeded lines carry the handler's time; no line at trace (handlers started, batches).
      assert(
        jobs.filter(_.message == "job succeeded").forall(_.context("duration_ms").toDouble >= 0)
      )
      assertEquals(lines.count(_.level == Level.Trace), 0)
      // Five claims of a job (the flaky one twice), at debug, with the worker and queue.
      assertEquals(claims.map(_.context("jobs").toInt).sum, 5)
      assert(claims.forall(c => c.level == Level.Debug && c.context("queue") == "default"))
      assert(
        claims.forall(c => c.context("worker") == "w1" && c.context("duration_ms").toDouble >= 0)
      )
  }

  test("the upkeep's events warn, with their error; a cancel in the queue is info") {
    val job = Job(7, "q", "p", 0, java.time.Instant.EPOCH, 2, 3, "k")
    val error = new RuntimeException("lock timeout")
    assertEquals(
      WorkerLog.entry("w", WorkerEvent.UpkeepError(UpkeepPart.Heartbeat, error, 3)),
      Entry(
        Level.Warn,
        "statement failed, trying again",
        Map("worker" -> "w", "part" -> "heartbeat", "attempt" -> "3"),
        Some(error)
      )
    )
    assertEquals(
      WorkerLog.entry("w", WorkerEvent.ConnectionLost("claim")),
      Entry(Level.Warn, "connection lost, reopening it", Map("worker" -> "w", "role" -> "claim"))
    )
    assertEquals(WorkerLog.entry("w", WorkerEvent.Lagged(12)).level, Level.Warn)
    assertEquals(
      WorkerLog.entry("w", WorkerEvent.Cancelled(job, CancelReason.CancelledInQueue)).level,
      Level.Info
    )
    assertEquals(
      WorkerLog.entry("w", WorkerEvent.Cancelled(job, CancelReason.LeaseLost)).level,
      Level.Warn
    )
    val written = Fenced.Written(completed = 3, retried = 1, discarded = 0, rejected = 1)
    assertEquals(
      WorkerLog.entry("w", WorkerEvent.Acknowledged(5, written, 2.millis)),
      Entry(
        Level.Info,
        "batch written, some writes refused",
        Map(
          "worker" -> "w",
          "jobs" -> "5",
          "completed" -> "3",
          "retried" -> "1",
          "discarded" -> "0",
          "snoozed" -> "0",
          "rejected" -> "1",
          "duration_ms" -> "2.000"
        )
      )
    )
  }
