package weir.postgres.queue

import cats.effect.IO
import cats.syntax.all.*
import munit.CatsEffectSuite
import scala.concurrent.duration.*
import weir.engine.RetryPolicy
import weir.postgres.{PgSession, PgTarget}
import weir.{Attempts, NonNegativeDuration}

/** What the crash test reads and writes, against a real PostgreSQL ([[TestPg]]): the run log, and
  * the probe's looks at claims, statements and counts.
  */
class QueueProbeSuite extends CatsEffectSuite:
  import QueueDbs.*

  override def munitIOTimeout: Duration = 2.minutes

  private val reconnect = RetryPolicy.exponential(
    Attempts(2),
    NonNegativeDuration.millis(10),
    NonNegativeDuration.millis(100)
  )

  test("the run log records each run under its worker; the probe sees claims, runs and counts") {
    val pid = 4242L
    val worker = s"host:$pid:abcd1234" // as Worker.defaultId names a worker of process 4242
    for
      db <- fresh("probe")
      _ <- PgSession.open[IO](db).use(s => Enqueue.many(s, jobs(5, "p")))
      claimed <- sql(db)(c => Claimer.claim(c, "p", 3, 1.minute, worker))
      _ <- RunLog
        .resource[IO](db, pid.toString, reconnect)
        .use(log => claimed.traverse_(log.started))
      // A second run of the first job under the same attempt: a duplicate.
      _ <- RunLog.resource[IO](db, "other", reconnect).use(_.started(claimed.head))
      claims = claimed.map(_.claim)
      _ <- sql(db)(c => Fenced.complete(c, claims.take(2), worker))
      probed <- PgSession.open[IO](db).use { s =>
        (
          QueueProbe.held(s, "p", pid),
          QueueProbe.holding(s, "p"),
          QueueProbe.unfinished(s, "p"),
          QueueProbe.stillRunning(s, claims),
          QueueProbe.ranAny(s, pid.toString, claims.drop(2)),
          QueueProbe.ranAny(s, "nobody", claims),
          QueueProbe.tally(s, "p"),
          QueueProbe.tally(s, claims.take(1).map(_.id).toSet)
        ).tupled
      }
      (held, holding, unfinished, running, ran, ranNot, all, first) = probed
    yield
      assertEquals(held, claims.drop(2))
      assertEquals(holding, Map(pid -> 1L))
      assertEquals(unfinished, 3L)
      assertEquals(running, 1L)
      assert(ran)
      assert(!ranNot)
      assertEquals(all, QueueProbe.Tally(5, 3, 0, 4, 3, 0))
      assertEquals(all.duplicates, 1L)
      assertEquals(first, QueueProbe.Tally(1, 0, 0, 2, 1, 0))
  }

  test(
    "while writes are stalled, a worker's claim and completion wait and the probe sees both; then they land"
  ) {
    val worker = "host:777:abcd1234"
    // A connection named as a connection of worker process 777 is (Worker.applicationName).
    def as(role: String, db: PgTarget) = PgSession.open[IO](db, s"weir worker ($role) 777")
    for
      db <- fresh("stall")
      _ <- PgSession.open[IO](db).use(s => Enqueue.many(s, jobs(3, "s")))
      claimed <- sql(db)(c => Claimer.claim(c, "s", 2, 1.minute, worker))
      claims = claimed.map(_.claim)
      _ <- sql(db)(c => Fenced.complete(c, claims.take(1), worker))
      unrun <- PgSession.open[IO](db).use(QueueProbe.tally(_, "s")).map(_.completedWithoutRun)
      seen <- PgSession.open[IO](db).use { stall =>
        QueueProbe.stallWrites(stall).surround {
          val writes = (
            as("ack", db).use(_.withConnection(c => Fenced.complete(c, claims.drop(1), worker))),
            as("claim", db).use(_.withConnection(c => Claimer.claim(c, "s", 1, 1.minute, worker)))
          ).parTupled
          writes.start.flatMap { running =>
            PgSession
              .open[IO](db)
              .use { look =>
                (IO.sleep(20.millis) >> QueueProbe.statements(look))
                  .iterateUntil(_.size == 2)
                  .timeout(30.seconds)
                  .flatMap(ss => ss.traverse(QueueProbe.stillActive(look, _)).map((ss, _)))
              }
              .map((running, _))
          }
        }
      }
      (running, (statements, active)) = seen
      written <- running.joinWithNever
      after <- PgSession.open[IO](db).use(s => statements.traverse(QueueProbe.stillActive(s, _)))
      left <- PgSession.open[IO](db).use(QueueProbe.held(_, "s", 777L))
    yield
      assertEquals(unrun, 1L)
      assertEquals(
        statements.map(s => (s.process, s.kind)).sortBy(_._2.ordinal),
        Vector(777L -> QueueProbe.Kind.Claim, 777L -> QueueProbe.Kind.Complete)
      )
      assertEquals(active, Vector(true, true))
      assertEquals(after, Vector(false, false))
      assertEquals(written._1.completed, 1)
      assertEquals(left.map(_.id), written._2.map(_.id))
  }
