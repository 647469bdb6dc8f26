package weir.postgres.queue

import cats.data.NonEmptyList
import cats.effect.IO
import cats.syntax.all.*
import munit.CatsEffectSuite
import scala.concurrent.duration.*
import weir.engine.RetryPolicy
import weir.postgres.{PgSession, PgTarget}
import weir.{Attempts, Concurrency, NonNegativeDuration, PositiveDuration}

/** One [[Worker]] serving several queues on a real PostgreSQL: every job of every queue and kind
  * completed once, on four connections whatever the number of queues; a paused queue left alone
  * while the others are served, then served once resumed. Everything asserted is counted.
  */
class WorkerQueuesSuite extends CatsEffectSuite:
  import QueueDbs.*
  import Faults.*

  override def munitIOTimeout: Duration = 2.minutes

  private def settings(queues: String*): QueueSettings =
    QueueSettings.default
      .withBackoff(
        RetryPolicy.exponential(Attempts(2), NonNegativeDuration.zero, NonNegativeDuration.zero)
      )
      .withPoll(PositiveDuration.millis(200))
      .withLease(PositiveDuration.seconds(5), PositiveDuration.seconds(1))
      .flatMap(_.withQueues(NonEmptyList.fromListUnsafe(queues.toList)))
      .fold(e => fail(e.getMessage), identity)

  private val engine = WorkerSettings.default.withConcurrency(Concurrency(8))

  private val email = JobKind[String]("email")
  private val resize = JobKind[String]("resize")

  // This worker's connections on `db`, by role (the test's own connections are named otherwise).
  private def roles(db: PgTarget): IO[Map[String, Long]] =
    sql(db) { c =>
      Jdbc.prepared(
        c,
        """SELECT substring(application_name FROM '\((\w+)\)'), count(*) FROM pg_stat_activity
          | WHERE datname = current_database() AND application_name LIKE 'weir worker (%'
          | GROUP BY 1""".stripMargin
      )(s => Jdbc.rows(s)(r => r.getString(1) -> r.getLong(2)).toMap)
    }

  private def enqueue(db: PgTarget, queue: String, kind: JobKind[String], n: Int): IO[Long] =
    val batch = Vector.tabulate(n)(i =>
      kind.job(s"$queue-$i").withQueue(queue).fold(e => fail(e.getMessage), identity)
    )
    PgSession.open[IO](db).use(s => Enqueue.many(s, batch))

  private val completed = "SELECT count(*) FROM weir.jobs WHERE state = 'completed'"

  test(
    "three queues, two kinds: every job completed once, on exactly four connections (claim, ack, upkeep, listen)"
  ) {
    val queues = List("mail", "images", "reports")
    for
      db <- fresh("queues")
      _ <- queues.traverse_(q => enqueue(db, q, email, 300) >> enqueue(db, q, resize, 200))
      handled <- IO.ref(Map.empty[(String, String), Int])
      count = (kind: String) =>
        (payload: String) =>
          handled.update(m =>
            m.updatedWith((payload.takeWhile(_ != '-'), kind))(n => Some(n.getOrElse(0) + 1))
          )
      handlers = JobHandlers
        .of[IO](email.handledBy(count("email")), resize.handledBy(count("resize")))
      outcome <- Worker.resource[IO](db, settings(queues*), engine).use { w =>
        val watch =
          waitCount(db, completed, 1500) >>
            waitUntil("the four connections")(roles(db).map(_.size == 4)) >> roles(db) <* w.stop
        w.run(handlers.handler).both(watch)
      }
      (report, connections) = outcome
      byQueueKind <- sql(db)(c =>
        Jdbc.prepared(
          c,
          "SELECT queue, kind, count(*) FROM weir.jobs WHERE state = 'completed' AND attempt = 1 GROUP BY 1, 2"
        )(s => Jdbc.rows(s)(r => (r.getString(1), r.getString(2)) -> r.getLong(3)).toMap)
      )
      seen <- handled.get
    yield
      assertEquals(connections, Map("claim" -> 1L, "ack" -> 1L, "upkeep" -> 1L, "listen" -> 1L))
      val expected = queues.flatMap(q => List((q, "email") -> 300L, (q, "resize") -> 200L)).toMap
      assertEquals(byQueueKind, expected)
      assertEquals(seen, expected.view.mapValues(_.toInt).toMap)
      assertEquals(report.counts.written.completed, 1500)
      assertEquals(report.counts.claimedByQueue, queues.map(_ -> 500L).toMap)
  }

  test("a paused queue is not claimed from while the others are; resumed, it is served") {
    for
      db <- fresh("pauseone")
      _ <- enqueue(db, "a", email, 100) >> enqueue(db, "b", email, 100)
      _ <- PgSession.open[IO](db).use(s => QueueAdmin.pause(s, "a"))
      report <- Worker.resource[IO](db, settings("a", "b"), engine).use { w =>
        val claimsNow = w.progress.head.compile.lastOrError.map(_.counts.claims)
        val paused =
          for
            _ <- waitCount(
              db,
              "SELECT count(*) FROM weir.jobs WHERE queue = 'b' AND state = 'completed'",
              100
            )
            // The worker goes on looking at both queues (empty claims count as claims): a few
            // more looks, and still nothing of `a` claimed.
            before <- claimsNow
            _ <- waitUntil("three more claims")(claimsNow.map(_ >= before + 3))
            untouched <- long(
              db,
              "SELECT count(*) FROM weir.jobs WHERE queue = 'a' AND attempt = 0"
            )
            _ = assertEquals(untouched, 100L)
            _ <- PgSession.open[IO](db).use(s => QueueAdmin.resume(s, "a"))
            _ <- waitCount(db, completed, 200)
          yield ()
        w.run(_ => IO.unit, tick = 50.millis).both(paused >> w.stop).map(_._1)
      }
      byQueue <- sql(db)(c =>
        Jdbc.prepared(
          c,
          "SELECT queue, count(*) FROM weir.jobs WHERE state = 'completed' GROUP BY 1"
        )(s => Jdbc.rows(s)(r => r.getString(1) -> r.getLong(2)).toMap)
      )
    yield
      assertEquals(byQueue, Map("a" -> 100L, "b" -> 100L))
      assertEquals(report.counts.claimedByQueue, Map("a" -> 100L, "b" -> 100L))
  }

  test(
    "a busy queue does not starve another: a job enqueued to an idle queue runs while the busy one still has jobs (poll interval an hour)"
  ) {
    val sleepy = settings("busy", "idle")
      .withPoll(PositiveDuration.hours(1))
      .withClaimBatch(weir.Capacity(20))
    val small = WorkerSettings.default
      .withConcurrency(Concurrency(4))
      .withQueueCapacity(weir.Capacity(20))
    for
      db <- fresh("starve")
      _ <- enqueue(db, "busy", email, 2000)
      _ <- Worker.resource[IO](db, sleepy, small).use { w =>
        // Enqueued once the busy queue is being served (and the idle one found empty).
        val late =
          waitCount(
            db,
            "SELECT count(*) FROM weir.jobs WHERE state = 'completed'",
            40,
            atLeast = true
          ) >>
            enqueue(db, "idle", email, 1) >>
            waitCount(
              db,
              "SELECT count(*) FROM weir.jobs WHERE queue = 'idle' AND state = 'completed'",
              1
            ) >>
            waitCount(db, completed, 2001) >> w.stop
        w.run(_ => IO.sleep(2.millis)).both(late)
      }
      after <- long(
        db,
        "SELECT count(*) FROM weir.jobs WHERE queue = 'busy' AND finished_at > (SELECT finished_at FROM weir.jobs WHERE queue = 'idle')"
      )
    yield assert(after > 0, "the idle queue's job ran only once the busy queue was drained")
  }

  test("settings: a queue given twice or an empty name is refused, naming it") {
    val twice = QueueSettings.default.withQueues(NonEmptyList.of("a", "b", "a"))
    assertEquals(twice.left.map(_.getMessage), Left("queue names ('a') must not repeat a queue"))
    assert(QueueSettings.default.withQueues(NonEmptyList.of("a", "")).isLeft)
    assertEquals(
      QueueSettings.default
        .withQueues(NonEmptyList.of("a", "b"))
        .map(s => (s.queue, s.queues.size)),
      Right(("a", 2))
    )
  }
