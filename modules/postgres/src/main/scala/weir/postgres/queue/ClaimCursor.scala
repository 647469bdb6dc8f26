package weir.postgres.queue

import scala.concurrent.duration.FiniteDuration

/** Where a worker's claims go on from: the place in claiming order (priority, run_at, id) where its
  * last claim ended, so that the next one starts its index scan there instead of stepping again
  * over the entries of every job claimed since the last vacuum (each claim leaves its jobs' entries
  * in `jobs_claim` pointing at dead row versions; after a million claims, a scan from the start
  * reads thousands of index pages to find nothing).
  *
  * A job that sorts before the cursor (a higher priority enqueued later, a job reaped or released
  * with its old run_at) is not seen by a claim that starts after it. So the cursor starts again
  * from the beginning every `restartEvery`, and a claim that started after the cursor and found
  * nothing is repeated at once from the beginning ([[Worker]] does both): such a job waits at most
  * `restartEvery` while the queue is busy, and not at all once it runs dry.
  *
  * Immutable; the claim loop keeps one at a time (it claims one batch at a time).
  */
private[weir] final case class ClaimCursor private (
    position: Option[Claimer.Position],
    startedAt: FiniteDuration,
    restartEvery: FiniteDuration
):

  /** Where the next claim starts, at monotonic time `now`: None (the beginning) when there is no
    * position yet or the cursor started more than `restartEvery` ago.
    */
  def after(now: FiniteDuration): Option[Claimer.Position] =
    position.filter(_ => now - startedAt < restartEvery)

  /** The cursor after a claim that started at `from` (what [[after]] said) and returned `jobs` (in
    * claiming order), at monotonic time `now`: at the last job claimed, restarted when the claim
    * started from the beginning; back to the beginning when it found nothing.
    */
  def advanced(
      from: Option[Claimer.Position],
      jobs: Vector[Job],
      now: FiniteDuration
  ): ClaimCursor =
    jobs.lastOption match
      case None => copy(position = None)
      case Some(last) =>
        val since = if from.isDefined then startedAt else now
        copy(position = Some(Claimer.Position.of(last)), startedAt = since)

private[weir] object ClaimCursor:

  /** How often a worker's claims start again from the beginning of the queue while it is busy. */
  val restartEvery: FiniteDuration = FiniteDuration(1, "s")

  /** A cursor at the beginning, restarting from it every `restartEvery`. */
  def start(restartEvery: FiniteDuration): ClaimCursor =
    ClaimCursor(None, FiniteDuration(0, "s"), restartEvery)
