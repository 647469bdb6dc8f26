package weir.postgres.queue

import cats.effect.{Async, Ref}
import cats.effect.syntax.all.*
import cats.syntax.all.*
import fs2.{Chunk, Stream}
import scala.concurrent.duration.FiniteDuration
import weir.Source
import weir.engine.RunState

/** A worker's claim loop: the [[weir.Source]] of its run, a batch of jobs at a time as the engine
  * pulls, claimed on the worker's one claim connection from each of its queues in turn
  * ([[ClaimTurn]]), each claim one call of `weir.claim_jobs` for one queue ([[Claimer]]: the same
  * statement and plan whatever the number of queues). A paused queue answers nothing (the claim
  * statement looks at its pause) and is then dry like an empty one: pausing one queue stops claims
  * from it alone. Idle (every queue dry), it waits for [[Wake]]: a notification for one of its
  * queues, or the poll interval.
  *
  * '''Concurrency.''' The engine pulls the source from one fiber: claims are one at a time, and the
  * turn ([[ClaimTurn]]) is a `Ref` only to be read and written from that one fiber.
  * '''Cancellation.''' Each statement and the recording of its answer as held are one uncancelable
  * step (a stop never loses a claim's answer: what is held is released at the end); the waits
  * before trying a failed statement again, and the waits for a wake-up, are not. '''Errors.''' A
  * claim that fails is tried again with backoff ([[WorkerUpkeep.persisting]]), as a
  * [[UpkeepPart.Claim]].
  */
private[queue] final class ClaimLoop[F[_]](
    id: String,
    settings: QueueSettings,
    held: Held[F],
    claims: QueueDb[F],
    state: F[RunState],
    counts: Ref[F, Worker.Counts],
    turn: Ref[F, ClaimTurn],
    upkeep: WorkerUpkeep[F],
    hub: Events[F]
)(using F: Async[F]):

  private val queues = settings.queues.toList.toVector
  private val many = queues.size > 1

  /** The jobs claimed until the run leaves `Running` (or, with `untilEmpty`, until no queue of the
    * worker has a job available, scheduled or running, its own last jobs written back first).
    */
  def source(wake: Wake[F], untilEmpty: Boolean): Source[F, Job] =
    val woken = wake.next >> turn.update(_.woken)
    // The run's own state says when to stop claiming: nothing is claimed once it has left Running.
    def loop: F[Option[Chunk[Job]]] = state.flatMap {
      case s if s != RunState.Running => F.pure(None)
      case _                          =>
        // Busy on one queue, the others notified meanwhile are claimable again at once.
        val heard =
          if many then wake.notified.flatMap(n => turn.update(_.notified(n)).whenA(n.nonEmpty))
          else F.unit
        heard >> F.monotonic.flatMap { now =>
          turn.get.flatMap { t =>
            t.pick(now) match
              case Some(i) =>
                claimed(i, t.cursor(i).after(now), now).flatMap(jobs =>
                  if jobs.nonEmpty then F.pure(Some(Chunk.from(jobs))) else loop
                )
              case None =>
                if !untilEmpty then woken >> loop
                // Its own last jobs may still fail and come back: look again once a batch of them
                // is written (the completer then pokes the wake-up), at a notification, or at the
                // poll.
                else if held.size > 0 then woken >> loop
                else
                  upkeep
                    .persisting(UpkeepPart.Claim)(
                      claims.use(c => queues.exists(Claimer.pending(c, _, settings.schema)))
                    )
                    .flatMap(pending => if pending then woken >> loop else F.pure(None))
          }
        }
    }
    Source.single(Stream.repeatEval(loop).unNoneTerminate.unchunks)

  // One claim on queue `i` from `from` (where its cursor says, see ClaimCursor), repeated from the
  // beginning when it started after the cursor and found nothing.
  private def claimed(
      i: Int,
      from: Option[Claimer.Position],
      now: FiniteDuration
  ): F[Vector[Job]] =
    val queue = queues(i)
    def claim(after: Option[Claimer.Position]): F[Vector[Job]] =
      upkeep
        .persisting(UpkeepPart.Claim)(F.uncancelable { _ =>
          claims
            .use(c =>
              Claimer
                .claim(c, queue, settings.claimBatch, settings.lease, id, after, settings.schema)
            )
            .timed
            .flatTap((_, jobs) =>
              F.delay(held.add(jobs)) >> counts.update(_.claimed(queue, jobs.size))
            )
        })
        .flatMap((took, js) => hub.publish(WorkerEvent.Claimed(js, took)).whenA(js.nonEmpty).as(js))
    for
      first <- claim(from)
      retried <- if first.isEmpty && from.isDefined then claim(None).map(Some(_)) else F.pure(None)
      jobs = retried.getOrElse(first)
      // An empty queue is dry from the end of its claim, however long the claim took.
      end <- if jobs.isEmpty then F.monotonic else F.pure(now)
      _ <- turn.update(_.claimed(i, if retried.isDefined then None else from, jobs, now, end))
    yield jobs
