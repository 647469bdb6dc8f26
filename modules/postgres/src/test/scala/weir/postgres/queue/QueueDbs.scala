package weir.postgres.queue

import cats.effect.IO
import java.sql.Connection
import weir.{Attempts, Concurrency, NonNegativeDuration, PositiveDuration}
import weir.engine.RetryPolicy
import weir.postgres.{ApplyReport, PgSession, PgTarget, TestPg}

/** A fresh database with the queue's schema for each test, and plain SQL to look at it. */
object QueueDbs:

  /** Queue settings that keep a test short: two attempts with no backoff, a poll every 200 ms, a
    * lease of `lease` renewed every second.
    */
  def quickQueue(lease: PositiveDuration = PositiveDuration.seconds(5)): QueueSettings =
    QueueSettings.default
      .withBackoff(
        RetryPolicy.exponential(Attempts(2), NonNegativeDuration.zero, NonNegativeDuration.zero)
      )
      .withPoll(PositiveDuration.millis(200))
      .withLease(lease, PositiveDuration.seconds(1))
      .fold(e => throw e, identity)

  /** A worker's engine running 8 jobs at once. */
  val smallEngine: WorkerSettings = WorkerSettings.default.withConcurrency(Concurrency(8))

  /** A new database on [[TestPg]]'s server with the queue's migrations applied. */
  def fresh(prefix: String): IO[PgTarget] =
    TestPg.database(prefix).flatTap { target =>
      PgSession.open[IO](target).use(QueueSchema.migrate[IO]).flatMap {
        case Right(r) if r.report.outcome == ApplyReport.Outcome.Completed => IO.unit
        case other =>
          IO.raiseError(new IllegalStateException(s"the queue's migrations failed: $other"))
      }
    }

  /** Runs `f` on a connection of its own. */
  def sql[A](target: PgTarget)(f: Connection => A): IO[A] =
    PgSession.open[IO](target, "weir test").use(_.withConnection(f))

  /** The first column of the first row of `query`, as a Long. */
  def long(target: PgTarget, query: String): IO[Long] =
    sql(target)(c => Jdbc.prepared(c, query)(s => Jdbc.rows(s)(_.getLong(1)).head))

  /** `n` jobs with payloads `0` .. `n - 1` on `queue`. */
  def jobs(n: Int, queue: String = NewJob.defaultQueue): Vector[NewJob] =
    Vector.tabulate(n)(i => NewJob(i.toString).withQueue(queue).fold(throw _, identity))
