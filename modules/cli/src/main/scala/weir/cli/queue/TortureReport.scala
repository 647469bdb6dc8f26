package weir.cli.queue

/** What a `weir queue torture` run found ([[Torture]]). `duplicates` are runs beyond one per job;
  * `bound` the jobs that the killed and paused workers held, which is as many as may run twice.
  * `phases` has the same invariants over the jobs held at the kills aimed at each [[Phase]], and at
  * the pause; `mix` those over the kinds, the schedule and the cancels ([[TortureMix]]).
  */
final case class TortureReport(
    queue: String,
    workers: Int,
    jobs: Long,
    seconds: Double,
    finished: Boolean,
    interrupted: Boolean,
    kills: Vector[TortureReport.Kill],
    phases: Vector[TortureReport.PhaseResult],
    lost: Long,
    completedWithoutRun: Long,
    runs: Long,
    duplicates: Long,
    bound: Long,
    refusedLateWrites: Long,
    exitCodes: Vector[Int],
    log: String,
    seed: Long,
    mix: TortureReport.Mix = TortureReport.Mix.none
):
  def passed: Boolean =
    finished && !interrupted && lost == 0 && completedWithoutRun == 0 && duplicates <= bound &&
      phases.forall(_.holds) && mix.holds

object TortureReport:

  /** Kill `k` (0: the pause, `aimed` None): whether it hit the phase it was aimed at (see
    * [[TortureAim.confirm]]), how many jobs the victim held, and how long until they all ran again
    * elsewhere (None: not within the run's limit).
    */
  final case class Kill(
      k: Int,
      aimed: Option[Phase],
      hit: Boolean,
      held: Int,
      recoveryMillis: Option[Long]
  )

  /** The kills aimed at one phase (or the pause): how many, how many hit it, the jobs held at them
    * (`held`), and of those jobs: not completed (`lost`), completed without a run of their last
    * attempt, and runs beyond one (`duplicates`), within `bound`: how many times, at any kill or
    * the pause, one of them was held (a job delivered again may be held at a later kill too).
    */
  final case class PhaseResult(
      name: String,
      kills: Int,
      hits: Int,
      held: Long,
      bound: Long,
      lost: Long,
      completedWithoutRun: Long,
      duplicates: Long,
      recoveryMillis: Vector[Long],
      notRecovered: Int
  ):
    def holds: Boolean = lost == 0 && completedWithoutRun == 0 && duplicates <= bound

  /** The jobs of one kind: how many, completed, cancelled. */
  final case class KindCount(kind: String, jobs: Long, completed: Long, cancelled: Long):
    def holds: Boolean = completed + cancelled == jobs

  /** What [[TortureMix]] checked: each kind's jobs all completed or cancelled; the cancelled jobs
    * exactly the `cancels` it made; the schedule's `periods` (every `everyMillis`) from the first
    * to the last with none `skipped` (gaps, or starts off the period's grid), none `doubled` (a
    * second job for a period), and no job of the schedule `withoutPeriod`.
    */
  final case class Mix(
      kinds: Vector[KindCount],
      cancels: Int,
      cancelledAsIntended: Boolean,
      everyMillis: Long,
      periods: Int,
      skipped: Long,
      doubled: Long,
      withoutPeriod: Long,
      missing: Vector[String] = Vector.empty
  ):
    def holds: Boolean =
      kinds.forall(_.holds) && cancelledAsIntended && skipped == 0 && doubled == 0 &&
        withoutPeriod == 0

  object Mix:
    val none: Mix = Mix(Vector.empty, 0, true, 0L, 0, 0L, 0L, 0L)
