package weir.cli.queue

import cats.effect.IO
import cats.effect.std.Random
import cats.syntax.all.*
import scala.concurrent.duration.*
import weir.PositiveDuration
import weir.postgres.PgSession
import weir.postgres.queue.{NewJob, Schedule, Schedules}

/** What `weir queue torture` mixes into its queue beside the kills ([[Torture]]): jobs of several
  * kinds ([[kinds]], in turn), a schedule putting a job of kind `tick` in the queue every [[every]]
  * (every worker process runs the scheduler), and cancels of running jobs. Its checks, counted in
  * the database: every job of each kind completed or cancelled, the cancelled ones exactly those it
  * cancelled; every period of the schedule from the first to the last enqueued, one job each (none
  * skipped, none doubled), and no job of the schedule without its period.
  *
  * The schedule's period, twice the lease and 3 s in whole seconds, is longer than anything that
  * stalls every worker's scheduler at once (the pause of a worker that may hold the schedule's row:
  * twice the lease and a second; a stall of the queue's writes: up to 3 s): a scheduler whose call
  * waits across a whole period skips that period by design (periods no worker could enqueue in time
  * are skipped), which is not what is tested here.
  *
  * '''Concurrency.''' [[cancelling]] runs beside the kills, on a session of its own; the rest runs
  * before or after them. '''Errors.''' A failed query fails the run.
  */
final class TortureMix(queue: String, lease: FiniteDuration, random: Random[IO]):
  import TortureMix.*

  /** The schedule's name. */
  val name: String = s"$queue-tick"

  /** The schedule's period: whole seconds, longer than any stall (see [[TortureMix]]). */
  val every: FiniteDuration = ((lease * 2 + 3.seconds).toMillis + 999L) / 1000L * 1.second

  /** The `i`th plain job: of kind `kinds(i % 3)`. */
  def job(template: NewJob, i: Int): NewJob =
    template.withPayload(i.toString).withKind(kinds(i % kinds.size)).fold(throw _, identity)

  /** Creates the schedule (its first period: the first to start from now on). */
  def schedule(session: PgSession[IO]): IO[Unit] =
    IO.fromEither(
      PositiveDuration
        .from(every, "every")
        .flatMap(d => Schedule.every(name, d, "tick"))
        .flatMap(_.withQueue(queue))
        .flatMap(_.withKind(tick))
    ).flatMap(Schedules.add(session, _))
      .void

  /** `n` cancels, a random 300..900 ms apart, each of one plain job running at that moment (one
    * statement picks and cancels it, as `weir queue cancel` does: it cannot complete in between;
    * tried again every 20 ms while none runs, until one is cancelled or no plain job is left to
    * run); the ids it cancelled.
    */
  def cancelling(session: PgSession[IO], n: Int): IO[Vector[Long]] =
    val one = session
      .query(
        s"""UPDATE weir.jobs SET state = 'cancelled', finished_at = now(), lease_until = NULL
           | WHERE id = (SELECT id FROM weir.jobs WHERE queue = ? AND state = 'running'
           |                AND kind <> '$tick' LIMIT 1 FOR UPDATE SKIP LOCKED)
           |RETURNING id""".stripMargin,
        queue
      )
      .map(_.flatMap(_.headOption.flatten).map(_.toLong))
    val left = session
      .query(
        s"""SELECT count(*) FROM weir.jobs
           | WHERE queue = ? AND state IN ('available', 'running') AND kind <> '$tick'""".stripMargin,
        queue
      )
      .map(_.head.head.fold(0L)(_.toLong))
    def tried: IO[Vector[Long]] = one.flatMap { ids =>
      if ids.nonEmpty then IO.pure(ids)
      else left.flatMap(l => if l == 0 then IO.pure(Vector.empty) else IO.sleep(20.millis) >> tried)
    }
    (1 to n).toVector.flatTraverse(_ =>
      random.betweenLong(300L, 900L).flatMap(ms => IO.sleep(ms.millis)) >> tried
    )

  /** How many periods of the schedule have been enqueued so far (the latest 100 are kept). */
  def periods(session: PgSession[IO]): IO[Long] =
    session
      .query("SELECT count(*) FROM weir.schedule_periods WHERE name = ?", name)
      .map(_.head.head.fold(0L)(_.toLong))

  /** Ends the schedule: its row locked (waiting for a worker enqueueing a period of it), its
    * periods read, the schedule removed, in one transaction: no period after these. The periods
    * (start in epoch ms, job id), by start.
    */
  def unschedule(session: PgSession[IO]): IO[Vector[(Long, Long)]] =
    val read = for
      _ <- session.query("SELECT 1 FROM weir.schedules WHERE name = ? FOR UPDATE", name)
      rows <- session.query(
        """SELECT (extract(epoch FROM period_start) * 1000)::bigint, job_id
          |  FROM weir.schedule_periods WHERE name = ? ORDER BY period_start""".stripMargin,
        name
      )
      _ <- session.update("DELETE FROM weir.schedules WHERE name = ?", name)
    yield rows.map(r => (r(0).get.toLong, r(1).get.toLong))
    // Back to autocommit commits the transaction (JDBC); a failure rolls it back first.
    session.transaction(on = true) >>
      read.onError(_ => session.rollback.attempt.void).guarantee(session.transaction(on = false))

  /** The checks over the queue once it is drained: `cancelled` the ids [[cancelling]] cancelled,
    * `periods` what [[unschedule]] read.
    */
  def check(
      session: PgSession[IO],
      cancelled: Vector[Long],
      periods: Vector[(Long, Long)]
  ): IO[TortureReport.Mix] =
    for
      byKind <- session
        .query(
          """SELECT kind, count(*), count(*) FILTER (WHERE state = 'completed'),
            |       count(*) FILTER (WHERE state = 'cancelled')
            |  FROM weir.jobs WHERE queue = ? GROUP BY kind ORDER BY kind""".stripMargin,
          queue
        )
        .map(_.map(r => (r(0).get, r(1).get.toLong, r(2).get.toLong, r(3).get.toLong)))
      ticks <- session
        .query(s"SELECT id FROM weir.jobs WHERE queue = ? AND kind = '$tick' ORDER BY id", queue)
        .map(_.map(_.head.get.toLong))
      cancelledNow <- session
        .query(
          "SELECT id FROM weir.jobs WHERE queue = ? AND state = 'cancelled' ORDER BY id",
          queue
        )
        .map(_.map(_.head.get.toLong))
    yield
      val starts = periods.map(_._1)
      val ms = every.toMillis
      TortureReport.Mix(
        kinds = byKind.map((k, n, done, c) => TortureReport.KindCount(k, n, done, c)),
        cancels = cancelled.size,
        cancelledAsIntended = cancelledNow == cancelled.sorted,
        everyMillis = ms,
        periods = starts.size,
        skipped = missing(starts, ms).size.toLong + starts.count(_ % ms != 0),
        missing = missing(starts, ms).map(java.time.Instant.ofEpochMilli(_).toString),
        doubled = ticks.size - periods.map(_._2).distinct.size,
        withoutPeriod = ticks.diff(periods.map(_._2)).size
      )

object TortureMix:

  /** The starts missing between consecutive `starts` of a period of `ms`. */
  def missing(starts: Vector[Long], ms: Long): Vector[Long] =
    starts.zip(starts.drop(1)).flatMap((a, b) => (a + ms) until b by ms)

  /** The kinds of the plain jobs, in turn. */
  val kinds: Vector[String] = Vector("alpha", "beta", "gamma")

  /** The kind of the schedule's jobs. */
  val tick: String = "tick"
