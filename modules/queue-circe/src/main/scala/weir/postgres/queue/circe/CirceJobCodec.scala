package weir.postgres.queue.circe

import io.circe.{Decoder, Encoder}
import weir.postgres.queue.JobCodec

/** [[weir.postgres.queue.JobCodec]]s from circe: a value is written as the JSON text of
  * `Encoder[A]` (compact, `noSpaces`) and read back by parsing and decoding it. A payload that is
  * not JSON, or not an `A`, decodes to `Left` with circe's message (the worker fails the job's
  * attempt with it). Pure values, safe from any thread.
  *
  * {{{
  * import weir.postgres.queue.circe.CirceJobCodec.given
  * final case class Email(to: String) derives io.circe.Codec.AsObject
  * val email = JobKind[Email]("email")
  * }}}
  */
object CirceJobCodec:

  /** The codec of `A` from its circe `Encoder` and `Decoder`. */
  given fromCirce[A](using encoder: Encoder[A], decoder: Decoder[A]): JobCodec[A] with
    def encode(a: A): String = encoder(a).noSpaces
    def decode(payload: String): Either[String, A] =
      io.circe.parser.decode[A](payload).left.map(_.getMessage)
