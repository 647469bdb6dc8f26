package weir.postgres.queue.ui

import java.time.Instant

/** What the pages show, as read by [[UiQueries]]: plain values, no behaviour. */
private[ui] object UiData:

  /** The most available jobs of one queue the overview counts; past it, it shows `10,000+`. */
  val CountCap: Int = 10000

  /** One queue on the overview: its live jobs, what finished in the chart's window, pause.
    * `available` is at most [[CountCap]] + 1; `running` and `workers` are as of the live workers'
    * latest heartbeats (see [[UiQueries.queues]]).
    */
  final case class QueueRow(
      name: String,
      available: Long,
      due: Long,
      oldestDueSeconds: Option[Double],
      running: Long,
      workers: Long,
      discarded: Long,
      completedRecently: Long,
      failedRecently: Long,
      pausedAt: Option[Instant]
  ):
    /** Whether there are more available jobs than the overview counted. */
    def capped: Boolean = available > CountCap

    /** `available` as the overview shows it: exact up to [[CountCap]], `10000+` past it. */
    def availableText: String = if capped then s"$CountCap+" else available.toString

    /** `due` as the overview shows it: a `+` when the count was capped. */
    def dueText: String = if capped then s"$due+" else due.toString

  /** Completions and failures in `bucketSeconds`-long buckets, oldest first, ending now. */
  final case class Chart(bucketSeconds: Int, completed: Vector[Long], failed: Vector[Long])

  /** A job as a list shows it: payload and error cut short. */
  final case class JobRow(
      id: Long,
      queue: String,
      kind: String,
      state: String,
      attempt: Int,
      maxAttempts: Int,
      runAt: Instant,
      errors: Int,
      lastError: Option[String],
      payload: String
  )

  /** Every column of a job that a person reads. */
  final case class JobDetail(
      id: Long,
      queue: String,
      kind: String,
      state: String,
      priority: Int,
      attempt: Int,
      maxAttempts: Int,
      errors: Int,
      lastError: Option[String],
      failedAt: Option[Instant],
      worker: Option[String],
      uniqueKey: Option[String],
      timeoutMs: Option[Long],
      leaseUntil: Option[Instant],
      createdAt: Instant,
      runAt: Instant,
      attemptedAt: Option[Instant],
      finishedAt: Option[Instant],
      payload: String,
      history: Vector[ErrorEntry] = Vector.empty
  )

  /** One failed attempt of a job, from its `error_history` (migration 0010): the attempt, when it
    * failed, the worker that held it (none when unknown), the error (cut at 4 000 characters).
    */
  final case class ErrorEntry(attempt: Int, at: Instant, worker: Option[String], error: String)

  /** A worker: its row in `weir.workers` (migration 0011, written at each of its heartbeats;
    * `None`s for a worker of an older version, seen only through its jobs), the jobs it holds now
    * (the first 20 ids, the oldest claim) and what it completed in the last minute.
    */
  final case class WorkerRow(
      worker: String,
      queues: Vector[String],
      startedAt: Option[Instant],
      beatAt: Option[Instant],
      holding: Long,
      jobs: Vector[Long],
      oldestClaim: Option[Instant],
      completedLastMinute: Long,
      completedTotal: Option[Long],
      failedTotal: Option[Long]
  )

  /** A schedule and the latest period it enqueued. */
  final case class ScheduleRow(
      name: String,
      queue: String,
      kind: String,
      everyMs: Option[Long],
      cron: Option[String],
      lastPeriod: Option[Instant],
      updatedAt: Instant,
      payload: String
  )

  /** The job states a list may be filtered by. */
  val states: List[String] = List("available", "running", "completed", "discarded", "cancelled")
