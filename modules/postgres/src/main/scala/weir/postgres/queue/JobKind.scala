package weir.postgres.queue

/** A kind of job whose payload is an `A`: `name` is stored in the job's `kind` column, and the
  * payload is `A` written by its [[JobCodec]]. A kind makes the jobs ([[job]]), reads them back
  * ([[decode]]), and pairs with a handler in a worker's [[JobHandlers]]:
  * {{{
  * final case class Email(to: String)
  * val email = JobKind[Email]("email")          // a JobCodec[Email] in scope
  * Enqueue.one(session, email.job(Email("a@b")))
  * worker.run(JobHandlers.of(email.handledBy(send)).handler)
  * }}}
  * Values; nothing here touches the database.
  */
final class JobKind[A] private (val name: String, val codec: JobCodec[A]):

  /** A job of this kind carrying `a`, with [[NewJob]]'s defaults (set the rest with its `withX`).
    */
  def job(a: A): NewJob = NewJob.ofKind(name, codec.encode(a))

  /** The payload of `job` read as an `A`; `Left` when `job` is of another kind or its payload does
    * not decode ([[JobKind.Undecodable]], naming the kind, the job and the codec's reason).
    */
  def decode(job: Job): Either[JobKind.Undecodable, A] =
    if job.kind != name then
      Left(JobKind.Undecodable(name, job.id, s"the job is of kind '${job.kind}'"))
    else codec.decode(job.payload).left.map(JobKind.Undecodable(name, job.id, _))

  /** This kind with its handler, for [[JobHandlers.of]]. */
  def handledBy[F[_]](handler: A => F[Unit]): JobHandlers.Entry[F] =
    JobHandlers.Entry(this, handler)

  override def toString: String = s"JobKind($name)"

object JobKind:

  /** The kind named `name` of payloads written by `codec`; raises `IllegalArgumentException` when
    * the name is empty (kinds are constants of the program, like the names of its classes).
    */
  def apply[A](name: String)(using codec: JobCodec[A]): JobKind[A] =
    require(name.nonEmpty, "a job kind's name must not be empty")
    new JobKind(name, codec)

  /** A claimed job whose payload its kind's codec could not read: the attempt fails with this
    * message (and the job is retried, then discarded, as any failure: a new version of the code may
    * read it).
    */
  final case class Undecodable(kind: String, jobId: Long, reason: String)
      extends RuntimeException(
        s"job $jobId of kind '$kind' does not decode: $reason",
        null,
        false,
        false
      )
      with weir.engine.Classified:
    def failureClass: String = "undecodable"
    override def overload: Boolean = false
