package weir.postgres.queue

/** How values of `A` are written into a job's payload and read back: text, stored as it is (JSON
  * text reads back in SQL as `payload::jsonb`). The postgres module depends on no JSON library:
  * `weir-queue-circe` gives instances from circe's `Encoder` and `Decoder`, and any other library
  * takes [[JobCodec.instance]].
  *
  * `decode` is pure and total: a payload it cannot read is a `Left` saying why (the worker fails
  * the job's attempt with it, see [[JobHandlers]]); `encode` does not fail.
  */
trait JobCodec[A]:

  /** The payload of `a`. */
  def encode(a: A): String

  /** The value of `payload`, or why it is not one. */
  def decode(payload: String): Either[String, A]

object JobCodec:

  /** The codec of `A` in scope. */
  def apply[A](using codec: JobCodec[A]): JobCodec[A] = codec

  /** A codec from its two functions. */
  def instance[A](enc: A => String, dec: String => Either[String, A]): JobCodec[A] =
    new JobCodec[A]:
      def encode(a: A): String = enc(a)
      def decode(payload: String): Either[String, A] = dec(payload)

  /** The payload as it is. */
  given text: JobCodec[String] = instance(identity, Right(_))
