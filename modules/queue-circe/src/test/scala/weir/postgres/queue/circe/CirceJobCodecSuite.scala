package weir.postgres.queue.circe

import cats.effect.{IO, Ref}
import io.circe.Codec
import munit.CatsEffectSuite
import scala.concurrent.duration.*
import weir.postgres.PgSession
import weir.postgres.queue.*
import weir.postgres.queue.circe.CirceJobCodec.given

/** Typed jobs with circe's codecs: values round-trip through their JSON text, a payload that is not
  * JSON or not the type decodes to `Left` with circe's reason, and on a real PostgreSQL a worker
  * handles `JobKind[Email]` jobs enqueued as JSON (read back with `payload::jsonb`).
  */
class CirceJobCodecSuite extends CatsEffectSuite:

  override def munitIOTimeout: Duration = 2.minutes

  final case class Email(to: String, subject: String) derives Codec.AsObject

  private val email = JobKind[Email]("email")

  test("a value round-trips through its JSON text; bad payloads are Left with circe's reason") {
    val codec = email.codec
    val payload = codec.encode(Email("a@b", "hi"))
    assertEquals(payload, """{"to":"a@b","subject":"hi"}""")
    assertEquals(codec.decode(payload), Right(Email("a@b", "hi")))
    assert(codec.decode("not json").isLeft)
    assert(codec.decode("""{"to":"a@b"}""").left.exists(_.contains("subject")))
  }

  test("enqueued as JSON, handled as Email by a worker; the payload reads back as jsonb") {
    val sent = (1 to 25).map(i => Email(s"u$i@x", s"s$i")).toVector
    for
      db <- QueueDbs.fresh("circe")
      _ <- PgSession.open[IO](db).use(s => Enqueue.many(s, sent.map(email.job)))
      asJson <- QueueDbs.long(
        db,
        "SELECT count(*) FROM weir.jobs WHERE kind = 'email' AND payload::jsonb ->> 'subject' IS NOT NULL"
      )
      got <- Ref.of[IO, Vector[Email]](Vector.empty)
      _ <- Worker.resource[IO](db, QueueSettings.default).use { w =>
        w.run(
          JobHandlers.of[IO](email.handledBy(e => got.update(_ :+ e))).handler,
          untilEmpty = true
        ).timeout(1.minute)
      }
      handled <- got.get
      completed <- QueueDbs.long(db, "SELECT count(*) FROM weir.jobs WHERE state = 'completed'")
    yield
      assertEquals(asJson, 25L)
      assertEquals(handled.sortBy(_.to), sent.sortBy(_.to))
      assertEquals(completed, 25L)
  }

  test("the README's example runs as shown") {
    for
      db <- QueueDbs.fresh("readme")
      sent <- ReadmeExample.program(db)
      completed <- QueueDbs.long(db, "SELECT count(*) FROM weir.jobs WHERE state = 'completed'")
      discarded <- QueueDbs.long(db, "SELECT count(*) FROM weir.jobs WHERE state = 'discarded'")
    yield
      assertEquals(sent, Vector("a@example.com"))
      assertEquals(completed, 2L)
      assertEquals(discarded, 1L)
  }
