package weir.postgres.queue

import cats.effect.{IO, Ref}
import munit.CatsEffectSuite
import scala.concurrent.duration.*
import weir.postgres.PgSession
import weir.Attempts

/** Typed jobs on a real PostgreSQL: [[JobKind]]s enqueued, a worker with [[JobHandlers]] for two
  * kinds handles both, a job of a kind it does not know ends discarded at once with the reason, a
  * payload that does not decode fails its attempts. Runs end by themselves (`untilEmpty`); what is
  * asserted is what the server holds and what the handlers saw.
  */
class TypedWorkerSuite extends CatsEffectSuite:
  import QueueDbs.*

  override def munitIOTimeout: Duration = 2.minutes

  // A tiny codec of its own: "name;age" (the circe one is tested in weir-queue-circe).
  final case class Person(name: String, age: Int)
  given JobCodec[Person] = JobCodec.instance(
    p => s"${p.name};${p.age}",
    s =>
      s.split(';') match
        case Array(n, a) => a.toIntOption.map(Person(n, _)).toRight(s"age '$a' is not a number")
        case _           => Left(s"'$s' is not name;age")
  )

  private val greet = JobKind[Person]("greet")
  private val count = JobKind[String]("count")

  private val quick = quickQueue()
  private val engine = smallEngine

  test("JobKind: encodes into a job of its kind and decodes it back; refuses other kinds") {
    val job = greet.job(Person("ada", 36))
    val claimed = Job(1, job.queue, job.payload, 0, java.time.Instant.EPOCH, 1, 25, job.kind)
    assertEquals(job.kind, "greet")
    assertEquals(greet.decode(claimed), Right(Person("ada", 36)))
    assert(count.decode(claimed).left.exists(_.getMessage.contains("of kind 'greet'")))
    assert(greet.decode(claimed.copy(payload = "ada;x")).left.exists(_.reason.contains("'x'")))
    intercept[IllegalArgumentException](JobKind[String](""))
  }

  test(
    "a worker with two kinds handles both; an unknown kind is discarded at once; bad payloads fail"
  ) {
    val people = (1 to 20).map(i => greet.job(Person(s"p$i", i))).toVector
    val words = (1 to 30).map(i => count.job(s"w$i")).toVector
    val unknown = NewJob("?").withKind("sms").fold(throw _, identity)
    val bad = greet.job(Person("x", 0)).withPayload("not a person").withMaxAttempts(Attempts(2))
    for
      db <- fresh("typed")
      _ <- PgSession.open[IO](db).use(s => Enqueue.many(s, people ++ words :+ unknown :+ bad))
      seen <- Ref.of[IO, Vector[Any]](Vector.empty)
      handlers = JobHandlers.of[IO](
        greet.handledBy(p => seen.update(_ :+ p)),
        count.handledBy(w => seen.update(_ :+ w))
      )
      report <- Worker.resource[IO](db, quick, engine).use { w =>
        w.run(handlers.handler, untilEmpty = true).timeout(1.minute)
      }
      handled <- seen.get
      completed <- long(db, "SELECT count(*) FROM weir.jobs WHERE state = 'completed'")
      discardedUnknown <- long(
        db,
        """SELECT count(*) FROM weir.jobs WHERE kind = 'sms' AND state = 'discarded' AND attempt = 1
          |   AND errors = 1 AND last_error = 'no handler for kind ''sms'''""".stripMargin
      )
      badFailed <- long(
        db,
        """SELECT count(*) FROM weir.jobs WHERE payload = 'not a person' AND state = 'discarded'
          |   AND attempt = 2 AND errors = 2 AND last_error LIKE 'undecodable: job % of kind ''greet''%'
          |   AND last_error LIKE '%not name;age%'""".stripMargin
      )
      rejected <- long(db, "SELECT count(*) FROM weir.job_rejections")
    yield
      assertEquals(
        handled.toSet,
        (people.map(j => greet.decode(asClaimed(j))) ++ words.map(j => count.decode(asClaimed(j))))
          .map(_.toOption.get)
          .toSet
      )
      assertEquals(handled.size, 50)
      assertEquals(completed, 50L)
      assertEquals(discardedUnknown, 1L)
      assertEquals(badFailed, 1L)
      assertEquals(rejected, 0L)
      // The unknown kind's discard and the bad payload's last failure.
      assertEquals(report.counts.written.discarded, 2)
      assertEquals(report.counts.written.retried, 1)
  }

  test("JobControl.Discard from a handler ends its job at once, fenced like every write") {
    for
      db <- fresh("discard")
      _ <- PgSession.open[IO](db).use(s => Enqueue.many(s, jobs(10)))
      _ <- Worker.resource[IO](db, quick, engine).use { w =>
        w.run(
          job =>
            if job.payload.toInt % 2 == 0 then
              IO.raiseError(JobControl.Discard("even: " + job.payload))
            else IO.unit,
          untilEmpty = true
        ).timeout(1.minute)
      }
      discarded <- long(
        db,
        "SELECT count(*) FROM weir.jobs WHERE state = 'discarded' AND last_error LIKE 'even: %' AND attempt = 1 AND finished_at IS NOT NULL AND lease_until IS NULL"
      )
      completed <- long(db, "SELECT count(*) FROM weir.jobs WHERE state = 'completed'")
      // A second discard of the same claims (a late worker's) changes nothing and is refused.
      late <- sql(db)(c =>
        Fenced.discard(c, Vector(Fenced.Discarded(Job.Claim(1, 2), "late")), "w")
      )
    yield
      assertEquals(discarded, 5L)
      assertEquals(completed, 5L)
      assertEquals(late, Fenced.Written(0, 0, 0, 1))
  }

  test("JobControl.Snooze puts a job off without using an attempt; it runs again and completes") {
    for
      db <- fresh("snooze")
      _ <- PgSession.open[IO](db).use(s => Enqueue.many(s, jobs(20)))
      runs <- Ref.of[IO, Map[Long, Int]](Map.empty)
      report <- Worker.resource[IO](db, quick, engine).use { w =>
        w.run(
          job =>
            runs
              .modify(m => (m.updated(job.id, m.getOrElse(job.id, 0) + 1), m.contains(job.id)))
              .flatMap { again =>
                if again then IO.unit else IO.raiseError(JobControl.Snooze(50.millis))
              },
          untilEmpty = true
        ).timeout(1.minute)
      }
      seen <- runs.get
      completed <- long(
        db,
        "SELECT count(*) FROM weir.jobs WHERE state = 'completed' AND attempt = 1 AND errors = 0 AND last_error IS NULL"
      )
    yield
      assertEquals(seen.values.toList, List.fill(20)(2))
      assertEquals(completed, 20L)
      assertEquals(report.counts.written.snoozed, 20)
      assertEquals(report.counts.written.completed, 20)
      assertEquals(report.counts.written.rejected, 0)
  }

  private def asClaimed(j: NewJob): Job =
    Job(0, j.queue, j.payload, j.priority, java.time.Instant.EPOCH, 1, 25, j.kind)
