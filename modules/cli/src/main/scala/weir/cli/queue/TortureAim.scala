package weir.cli.queue

import cats.effect.IO
import cats.effect.std.Random
import cats.syntax.all.*
import scala.concurrent.duration.*
import weir.postgres.PgSession
import weir.postgres.queue.QueueProbe

/** A step of a worker's work that a kill of `weir queue torture` is aimed at. */
enum Phase:
  /** Its claim statement is running on the server: jobs being taken, the answer not yet read. */
  case Claiming

  /** It holds claimed jobs and neither its claim nor its completion statement is running. */
  case Handling

  /** Its completion statement is running on the server: jobs done, not yet known to be written. */
  case Completing

  def label: String = toString.toLowerCase

/** Aims a kill at a worker process in a given [[Phase]], from what the server shows
  * ([[QueueProbe]]): the claim and completion statements of each worker process in
  * `pg_stat_activity`, and the jobs a process holds in `weir.jobs`. Nothing in the workers is
  * instrumented.
  *
  * A claim or a completion takes a millisecond or two, less than a look and a kill: to land a kill
  * inside one, [[strike]] first stalls every write to `weir.jobs` on `stall` (a connection of its
  * own; reads go on: [[QueueProbe.stallWrites]]), waits until a worker's claim (or completion)
  * statement is waiting on that lock, kills that worker while the statement waits, and then lets
  * go: the statement then runs to its end on the server with its worker dead, its answer lost.
  * Handling needs no stall: a worker holding jobs and running no statement.
  *
  * '''Concurrency.''' Looks are queries on `session`, one at a time. '''Errors.''' The lock is
  * released (rolled back) whatever happens, a failure included.
  */
final class TortureAim(
    session: PgSession[IO],
    stall: PgSession[IO],
    queue: String,
    random: Random[IO]
):
  import TortureAim.*

  // The claim and completion statements running now.
  private val statements: IO[Vector[QueueProbe.Statement]] = QueueProbe.statements(session)

  // How many running jobs each worker process holds.
  private val holding: IO[Map[Long, Long]] = QueueProbe.holding(session, queue)

  /** Finds one of `processes` in `phase` (stalling the queue's writes for a claim or a completion,
    * see [[TortureAim]]) within `patience` and runs `kill` on it (None: none was found) before the
    * stall ends.
    */
  def strike[A](phase: Phase, processes: Set[Long], patience: FiniteDuration)(
      kill: Option[Target] => IO[A]
  ): IO[A] =
    val found = find(phase, processes, patience).flatMap(kill)
    if phase == Phase.Handling then found
    else QueueProbe.stallWrites(stall).surround(found)

  // Looks, again and again for up to `patience`, for one of `processes` in `phase`; a random one
  // of those seen in it, or None when none was.
  private def find(
      phase: Phase,
      processes: Set[Long],
      patience: FiniteDuration
  ): IO[Option[Target]] =
    val once: IO[Option[Target]] = statements.flatMap { running =>
      val candidates: IO[Vector[Target]] = phase match
        case Phase.Handling =>
          val busy = running.map(_.process).toSet
          holding.map(held =>
            processes.toVector
              .filter(p => !busy(p) && held.getOrElse(p, 0L) > 0)
              .map(Target(_, phase, None))
          )
        case _ =>
          IO.pure(
            running
              .filter(s => phaseOf(s.kind) == phase && processes(s.process))
              .map(s => Target(s.process, phase, Some(s)))
          )
      candidates.flatMap(cs =>
        if cs.isEmpty then IO.none
        else random.nextIntBounded(cs.size).map(i => Some(cs(i)))
      )
    }
    (once, IO.monotonic).tupled
      .flatMap { case (found, started) =>
        def loop(found: Option[Target]): IO[Option[Target]] = found match
          case some @ Some(_) => IO.pure(some)
          case None =>
            IO.monotonic.flatMap(now =>
              if now - started >= patience then IO.none else IO.sleep(1.milli) >> once >>= loop
            )
        loop(found)
      }

  /** Whether the kill of `target` (SIGKILL sent) hit the phase it was aimed at: for a claim or a
    * completion, the server still runs (or waits to run) the statement, so the worker died before
    * its answer; for handling, none of its claim or completion statements runs and some handler of
    * a job it held had started (`started`).
    */
  def confirm(target: Target, started: Boolean): IO[Boolean] =
    target.statement match
      case Some(s) => QueueProbe.stillActive(session, s)
      case None =>
        statements.map(running => started && !running.exists(_.process == target.process))

object TortureAim:

  /** The phase a worker running `kind` is in. */
  def phaseOf(kind: QueueProbe.Kind): Phase = kind match
    case QueueProbe.Kind.Claim    => Phase.Claiming
    case QueueProbe.Kind.Complete => Phase.Completing

  /** A worker process found in `phase` (with the statement it was running, for claiming and
    * completing).
    */
  final case class Target(process: Long, phase: Phase, statement: Option[QueueProbe.Statement])
