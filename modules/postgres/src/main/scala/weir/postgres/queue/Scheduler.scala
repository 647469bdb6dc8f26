package weir.postgres.queue

import cats.effect.Async
import cats.syntax.all.*
import java.sql.Connection
import java.time.Instant
import scala.concurrent.duration.*

/** The scheduler every [[Worker]] runs beside its run (see [[Schedules]]): it keeps the schedules
  * as last read (every `refresh` it looks whether they changed, one row, and reads them again only
  * then), sleeps until the earliest next period start of any of them, then asks the server to
  * enqueue each period due (`weir.enqueue_period`, in one statement per 500 schedules, in name
  * order so that two workers lock rows in the same order). The server decides: a period is enqueued
  * once, and only once it has started by the server's clock; the local clock only says when to ask
  * (its offset from the server's is measured at each read).
  *
  * '''Errors.''' A lost connection is reopened by [[QueueDb.use]]; any other error ends the pass,
  * is given to `failed` (with how many passes in a row failed: the worker publishes it as a
  * [[WorkerEvent.UpkeepError]]), and the scheduler starts over after `refresh`, reading the
  * schedules again (its first pass then enqueues the current periods only): it never fails the
  * worker. '''Cancellation.''' Cancelling it cancels the statement in flight, which rolls back
  * whole: a period is then enqueued by the next pass of any worker.
  */
private[queue] final class Scheduler[F[_]](
    db: QueueDb[F],
    schema: QueueSchemaName,
    refresh: FiniteDuration,
    failed: (Throwable, Int) => F[Unit]
)(using F: Async[F]):
  import Scheduler.*

  /** Runs until cancelled. */
  def run: F[Unit] = loop(State.empty, 0)

  private def loop(state: State, failures: Int): F[Unit] =
    pass(state).attempt.flatMap {
      case Right(next) => loop(next, 0)
      case Left(e) => failed(e, failures + 1) >> F.sleep(refresh) >> loop(State.empty, failures + 1)
    }

  // One pass: read the schedules if it is time, enqueue what is due, sleep until the next start
  // (or the next read).
  private def pass(state: State): F[State] =
    for
      mono <- F.monotonic
      current <-
        if state.readAt.forall(at => mono - at >= refresh) then reading(state, mono)
        else F.pure(state)
      now <- serverNow(current.offsetMillis)
      due = Scheduler.due(current.entries.values, now, current.passedAt)
      outcomes <- if due.isEmpty then F.pure(Vector.empty) else db.use(enqueue(_, due, schema))
      next = current.recorded(outcomes).copy(passedAt = Some(now))
      later <- serverNow(next.offsetMillis)
      elapsed <- F.monotonic.map(m => next.readAt.fold(refresh)(m - _))
      untilRead = (refresh - elapsed).max(Duration.Zero)
      _ <- F.sleep(sleepFor(next, later, outcomes.exists(_._3 == Outcome.Early)).min(untilRead))
    yield next

  // Looks at the schedules' version, reads them again only when it changed (one small row every
  // `refresh` when nothing changes, rather than every schedule), and measures the server clock's
  // offset from ours (in ms).
  private def reading(state: State, mono: FiniteDuration): F[State] =
    for
      before <- F.realTime
      looked <- db.use(Schedules.version(_, schema))
      (server, version) = looked
      after <- F.realTime
      offset = server.toEpochMilli - (before + after).toMillis / 2
      entries <-
        if state.version.contains(version) then F.pure(state.entries)
        else
          db.use(Schedules.read(_, schema))
            .map((_, stored) => stored.map(s => s.schedule.name -> Entry(s)).toMap)
    yield State(entries, offset, Some(mono), Some(version), state.passedAt)

  private def serverNow(offsetMillis: Long): F[Instant] =
    F.realTime.map(t => Instant.ofEpochMilli(t.toMillis + offsetMillis))

private[queue] object Scheduler:

  /** How often a worker's scheduler reads the schedules again. */
  val refreshEvery: FiniteDuration = 5.seconds

  /** A worker's scheduler on `db` for the queue in `schema`, reading the schedules every
    * [[refreshEvery]].
    */
  def on[F[_]: Async](
      db: QueueDb[F],
      schema: QueueSchemaName,
      failed: (Throwable, Int) => F[Unit]
  ): Scheduler[F] =
    new Scheduler(db, schema, refreshEvery, failed)

  // A few ms after a start, so that the server's clock has passed it too.
  private val lag: FiniteDuration = 2.millis
  // Asked too early (our clock ahead of the server's): ask again after this.
  private val retryEarly: FiniteDuration = 20.millis
  // Periods per statement.
  private val batch = 500

  /** What the server did with one period. */
  enum Outcome:
    case Enqueued(job: Long)
    case Taken, Early, Before, Gone

  private[queue] object Outcome:
    def parse(text: String, job: Option[Long]): Outcome = text match
      case "enqueued" => Enqueued(job.getOrElse(-1L))
      case "taken"    => Taken
      case "early"    => Early
      case "before"   => Before
      case _          => Gone

  /** A schedule as the scheduler knows it: as read, and the latest period it saw settled. */
  private[queue] final case class Entry(stored: Schedules.Stored, settled: Option[Instant]):
    def spec: Schedule.Spec = stored.schedule.spec
  private[queue] object Entry:
    def apply(s: Schedules.Stored): Entry = Entry(s, s.lastPeriod)

  private final case class State(
      entries: Map[String, Entry],
      offsetMillis: Long,
      readAt: Option[FiniteDuration],
      version: Option[Schedules.Version],
      // The server's time at the previous pass: periods that started since are due too (a
      // scheduler that was running but late, its call stalled, enqueues the periods it missed).
      passedAt: Option[Instant]
  ):
    // Enqueued, taken or before the schedule: settled; early: asked again; gone: forgotten.
    def recorded(outcomes: Vector[(String, Instant, Outcome)]): State =
      copy(entries = outcomes.foldLeft(entries) { case (es, (name, period, outcome)) =>
        outcome match
          case Outcome.Early => es
          case Outcome.Gone  => es - name
          case _             => es.updatedWith(name)(_.map(e => e.copy(settled = Some(period))))
      })

  private object State:
    val empty: State = State(Map.empty, 0L, None, None, None)

  /** The periods due at `now`: for each schedule, the period `now` falls in and, when the scheduler
    * passed before at `since`, every period that started after `since` (at most [[catchUp]]: the
    * scheduler ran through them, late), each when it starts at or after the schedule was created or
    * replaced and after the latest period settled; by name, then start.
    */
  def due(
      entries: Iterable[Entry],
      now: Instant,
      since: Option[Instant] = None
  ): Vector[(String, Instant)] =
    entries.iterator
      .flatMap { e =>
        val missed = since.fold(Iterator.empty[Instant]) { from =>
          Iterator
            .iterate(e.spec.next(from))(_.flatMap(e.spec.next))
            .takeWhile(_.exists(!_.isAfter(now)))
            .flatten
            .take(catchUp)
        }
        (missed ++ e.spec.current(now).iterator).distinct
          .filter(p => !p.isBefore(e.stored.since) && e.settled.forall(_.isBefore(p)))
          .map(e.stored.schedule.name -> _)
      }
      .toVector
      .sortBy((name, start) => (name, start.toEpochMilli))

  /** The most periods of one schedule a late pass enqueues (see [[due]]). */
  val catchUp: Int = 100

  // Until the earliest next start (or shortly, when the server found a period early).
  private def sleepFor(state: State, now: Instant, early: Boolean): FiniteDuration =
    if early then retryEarly
    else
      val starts = state.entries.valuesIterator.flatMap(_.spec.next(now))
      if !starts.hasNext then refreshEvery
      else
        val first = starts.minBy(_.toEpochMilli)
        (first.toEpochMilli - now.toEpochMilli).max(0L).millis + lag

  /** Calls `weir.enqueue_period` for each of `due` (by name, 500 per statement); each period's
    * outcome.
    */
  def enqueue(
      c: Connection,
      due: Vector[(String, Instant)],
      schema: QueueSchemaName = QueueSchemaName.default
  ): Vector[(String, Instant, Outcome)] =
    due.grouped(batch).toVector.flatMap { group =>
      Jdbc.prepared(
        c,
        s"""SELECT u.i, e.outcome, e.job_id
          |  FROM unnest(?::text[], ?::text[]) WITH ORDINALITY AS u(n, p, i),
          |       LATERAL $schema.enqueue_period(u.n, u.p::timestamptz) e
          | ORDER BY u.i""".stripMargin
      ) { s =>
        s.setArray(1, Jdbc.texts(c, group.map(_._1)))
        s.setArray(2, Jdbc.texts(c, group.map(_._2.toString)))
        Jdbc.rows(s) { r =>
          val (name, period) = group(r.getInt(1) - 1)
          val job = Option(r.getObject(3)).map(_ => r.getLong(3))
          (name, period, Outcome.parse(r.getString(2), job))
        }
      }
    }

  /** One pass at `now` on `c`, whatever the clock says: the schedules read, each period due at
    * `now` enqueued (see [[due]]); the outcomes. For tests and tools: the worker's scheduler is
    * [[Scheduler.run]].
    */
  def passAt(
      c: Connection,
      now: Instant,
      schema: QueueSchemaName = QueueSchemaName.default
  ): Vector[(String, Instant, Outcome)] =
    val (_, stored) = Schedules.read(c, schema)
    val d = due(stored.map(Entry(_)), now)
    if d.isEmpty then Vector.empty else enqueue(c, d, schema)
