package weir.postgres.queue

import scala.concurrent.duration.FiniteDuration

/** Which of a worker's queues its next claim goes to, and where in each queue it starts (a
  * [[ClaimCursor]] per queue).
  *
  * The queues are served in turn, a claim each: after a claim that took jobs from one, the next
  * goes to the one after it, so a busy queue never starves another. A queue whose claim found
  * nothing is '''dry''' and skipped until `poll` has passed since, or until it is [[notified]]
  * (jobs were enqueued to it), or until the worker is [[woken]] after waiting with every queue dry:
  * a queue with nothing to claim costs one empty claim per poll interval while others are busy, not
  * one per batch. The order of the queues is the caller's; their priorities are not compared (each
  * claim takes its own queue's jobs in claiming order).
  *
  * With one queue, [[pick]] is that queue unless its last claim found nothing, exactly the claim
  * loop of a single-queue worker.
  *
  * Immutable; the claim loop keeps one at a time (it claims one batch at a time).
  */
private[weir] final case class ClaimTurn private (
    queues: Vector[String],
    cursors: Vector[ClaimCursor],
    dryAt: Vector[Option[FiniteDuration]],
    next: Int,
    poll: FiniteDuration
):

  /** The index of the queue to claim from at monotonic time `now`: the first, from the one whose
    * turn it is, that is not dry; None when every queue is dry.
    */
  def pick(now: FiniteDuration): Option[Int] =
    val n = queues.size
    var k = 0
    var found = -1
    while found < 0 && k < n do
      val i = (next + k) % n
      if dryAt(i).forall(at => now - at >= poll) then found = i
      k += 1
    if found < 0 then None else Some(found)

  /** The cursor of queue `i`. */
  def cursor(i: Int): ClaimCursor = cursors(i)

  /** After a claim on queue `i` that started at `from` (what its cursor said) at monotonic time
    * `now` and took `jobs`, ending at `end`: its cursor advanced ([[ClaimCursor.advanced]]); the
    * turn passes to the next queue when it took jobs, else queue `i` is dry from `end`.
    */
  def claimed(
      i: Int,
      from: Option[Claimer.Position],
      jobs: Vector[Job],
      now: FiniteDuration,
      end: FiniteDuration
  ): ClaimTurn =
    val cursor = cursors(i).advanced(from, jobs, now)
    if jobs.nonEmpty then
      copy(
        cursors = cursors.updated(i, cursor),
        dryAt = dryAt.updated(i, None),
        next = (i + 1) % queues.size
      )
    else copy(cursors = cursors.updated(i, cursor), dryAt = dryAt.updated(i, Some(end)))

  /** Every queue claimable again: the worker waited for a notification or the poll interval. */
  def woken: ClaimTurn =
    if dryAt.forall(_.isEmpty) then this else copy(dryAt = Vector.fill(queues.size)(None))

  /** The queues `names` claimable again (jobs were enqueued to them). */
  def notified(names: Set[String]): ClaimTurn =
    if names.isEmpty then this
    else copy(dryAt = dryAt.zip(queues).map((d, q) => if names.contains(q) then None else d))

private[weir] object ClaimTurn:

  /** The turn of `queues` (in that order, the first first), none dry, each cursor at the beginning
    * and restarting from it every `restartEvery`; a dry queue is looked at again after `poll`.
    */
  def start(
      queues: Vector[String],
      poll: FiniteDuration,
      restartEvery: FiniteDuration = ClaimCursor.restartEvery
  ): ClaimTurn =
    ClaimTurn(
      queues,
      Vector.fill(queues.size)(ClaimCursor.start(restartEvery)),
      Vector.fill(queues.size)(None),
      0,
      poll
    )
