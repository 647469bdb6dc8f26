package weir.postgres.queue

import cats.effect.IO
import cats.syntax.all.*
import munit.CatsEffectSuite
import scala.concurrent.duration.*
import weir.Attempts
import weir.postgres.PgSession

/** [[QueueTestKit]]: handlers run inline with no database, what a test's code enqueued read back
  * typed, and a test database's queue drained inline, each outcome written as a worker writes it.
  */
class QueueTestKitSuite extends CatsEffectSuite:
  import QueueDbs.*

  override def munitIOTimeout: Duration = 2.minutes

  // A resize order as "image:width", a codec of this test's own.
  final case class Resize(image: Long, width: Int)
  given JobCodec[Resize] = JobCodec.instance(
    r => s"${r.image}:${r.width}",
    s =>
      s.split(':') match
        case Array(i, w) =>
          (i.toLongOption, w.toIntOption).mapN(Resize(_, _)).toRight(s"not image:width: $s")
        case _ => Left(s"not image:width: $s")
  )
  private val resize = JobKind[Resize]("resize")
  private val email = JobKind[String]("email")

  private def handlers(sent: cats.effect.Ref[IO, Vector[String]]) = JobHandlers.of[IO](
    email.handledBy(to =>
      if to == "later" then IO.raiseError(JobControl.Snooze(5.seconds))
      else if to == "bad" then IO.raiseError(new IllegalArgumentException("no such mailbox"))
      else sent.update(_ :+ to)
    ),
    resize.handledBy(_ => IO.unit)
  )

  test("inline, no database: each job's outcome, in order") {
    for
      sent <- IO.ref(Vector.empty[String])
      ran <- QueueTestKit.runInline(
        handlers(sent).handler,
        List(
          email.job("a@b"),
          resize.job(Resize(7, 64)),
          NewJob("x").withKind("sms").fold(throw _, identity),
          email.job("later"),
          email.job("bad"),
          NewJob("7").withKind("resize").fold(throw _, identity)
        )
      )
      mails <- sent.get
    yield
      assertEquals(ran.map(_._1.id), Vector(1L, 2L, 3L, 4L, 5L, 6L))
      val outcomes = ran.map(_._2)
      assertEquals(
        outcomes.take(4).toList,
        List(
          QueueTestKit.Outcome.Completed,
          QueueTestKit.Outcome.Completed,
          QueueTestKit.Outcome.Discarded("no handler for kind 'sms'"),
          QueueTestKit.Outcome.Snoozed(5.seconds)
        )
      )
      assert(clue(outcomes(4)).isInstanceOf[QueueTestKit.Outcome.Failed])
      outcomes(5) match
        case QueueTestKit.Outcome.Failed(e: JobKind.Undecodable) =>
          assertEquals(e.getMessage, "job 6 of kind 'resize' does not decode: not image:width: 7")
        case other => fail(s"expected an undecodable payload, got $other")
      assertEquals(mails, Vector("a@b"))
  }

  test("what the code under test enqueued, read back typed; other kinds and queues left out") {
    for
      db <- fresh("kit_enqueued")
      _ <- PgSession.open[IO](db).use { s =>
        Enqueue.many(
          s,
          List(
            resize.job(Resize(1, 64)),
            email.job("a@b"),
            resize.job(Resize(2, 128)).withPriority(-1).fold(throw _, identity),
            resize.job(Resize(3, 32)).withQueue("other").fold(throw _, identity)
          )
        )
      }
      typed <- PgSession.open[IO](db).use(QueueTestKit.enqueuedOf(_, resize))
      all <- PgSession.open[IO](db).use(QueueTestKit.enqueued(_))
    yield
      assertEquals(typed, Vector(Resize(2, 128), Resize(1, 64)))
      assertEquals(all.map(_.kind), Vector("resize", "resize", "email"))
      assertEquals(all.map(_.attempt).distinct, Vector(1))
  }

  test("a test database drained inline: retried to the last attempt, discarded, snoozed, done") {
    for
      db <- fresh("kit_drain")
      sent <- IO.ref(Vector.empty[String])
      _ <- PgSession.open[IO](db).use { s =>
        Enqueue.many(
          s,
          List(
            email.job("a@b"),
            email.job("bad").withMaxAttempts(Attempts(3)),
            email.job("later"),
            NewJob("x").withKind("sms").fold(throw _, identity)
          )
        )
      }
      ran <- PgSession.open[IO](db).use(QueueTestKit.drain(_, handlers(sent).handler))
      states <- sql(db)(c =>
        Jdbc.prepared(c, "SELECT payload, state, attempt, errors FROM weir.jobs ORDER BY id")(s =>
          Jdbc.rows(s)(r => (r.getString(1), r.getString(2), r.getInt(3), r.getInt(4)))
        )
      )
    yield
      assertEquals(
        ran.map((j, o) => (j.payload, j.attempt, o.productPrefix)).toList,
        List(
          ("a@b", 1, "Completed"),
          ("bad", 1, "Failed"),
          ("later", 1, "Snoozed"),
          ("x", 1, "Discarded"),
          ("bad", 2, "Failed"),
          ("bad", 3, "Failed")
        )
      )
      assertEquals(
        states.toList,
        List(
          ("a@b", "completed", 1, 0),
          ("bad", "discarded", 3, 3),
          ("later", "available", 0, 0),
          ("x", "discarded", 1, 1)
        )
      )
  }
