package weir.postgres.queue.circe

import cats.effect.{IO, Ref}
import weir.postgres.PgTarget

/** The README's typed-jobs example (the lead copies it from here), compiled and run by
  * [[CirceJobCodecSuite]].
  */
object ReadmeExample:

  def program(target: PgTarget): IO[Vector[String]] =
    // --- README snippet starts
    import io.circe.Codec
    import weir.postgres.PgSession
    import weir.postgres.queue.*
    import weir.postgres.queue.circe.CirceJobCodec.given

    final case class Email(to: String) derives Codec.AsObject
    final case class Resize(image: Long, width: Int) derives Codec.AsObject
    val email = JobKind[Email]("email")
    val resize = JobKind[Resize]("resize")

    // In the application's own transaction: weir's session here, or JdbcEnqueue on a
    // java.sql.Connection (doobie: FC.raw(c => JdbcEnqueue.direct.one(c, job))) or a DataSource,
    // or in SQL from any client: SELECT weir.enqueue('default', '{"to":"a"}', kind => 'email')
    val enqueue = PgSession.open[IO](target).use { s =>
      Enqueue.one(s, email.job(Email("a@example.com"))) >>
        Enqueue.one(s, resize.job(Resize(42, 640))) >>
        Enqueue.one(s, NewJob("?").withKind("sms").toOption.get) // no handler: discarded
    }

    def work(sent: Ref[IO, Vector[String]]) =
      val handlers = JobHandlers.of[IO](
        email.handledBy(e => sent.update(_ :+ e.to)),
        resize.handledBy(_ => IO.unit) // a handler may raise JobControl.Discard(reason)
      )
      Worker.resource[IO](target, QueueSettings.default).use { worker =>
        worker.run(handlers.handler, untilEmpty = true)
      }
    // --- README snippet ends

    Ref.of[IO, Vector[String]](Vector.empty).flatMap(sent => enqueue >> work(sent) >> sent.get)
