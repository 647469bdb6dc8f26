package weir.postgres.queue

import java.sql.Connection
import scala.concurrent.duration.FiniteDuration

/** The writes about a claim, each fenced by the claim's attempt: it applies only while the job is
  * still `running` under that attempt. A write refused by the fence (a late worker's: its lease
  * expired and the job was delivered again, or it was cancelled) changes nothing and is recorded in
  * `weir.job_rejections`, so that it can be counted across workers.
  *
  * Each statement handles a whole batch in one round trip (`unnest` of arrays), and each is safe to
  * repeat after its answer was lost: a claim that the same statement already wrote is recognised
  * (completed, or failed, under the same attempt) and neither written twice nor counted as
  * rejected.
  */
private[weir] object Fenced:

  /** What one batch did. */
  final case class Written(
      completed: Int,
      retried: Int,
      discarded: Int,
      rejected: Int,
      snoozed: Int = 0
  ):
    def +(o: Written): Written =
      Written(
        completed + o.completed,
        retried + o.retried,
        discarded + o.discarded,
        rejected + o.rejected,
        snoozed + o.snoozed
      )

  object Written:
    val none: Written = Written(0, 0, 0, 0)

  /** A failed attempt: its error, and the delay before the job may run again. */
  final case class Failure(claim: Job.Claim, error: String, delay: FiniteDuration)

  /** The function every completion calls; [[QueueProbe]] finds completions running on the server by
    * it. (Defined before the statement that reads it: an object's vals start in order.)
    */
  private[queue] def completeFunction(schema: QueueSchemaName): String = s"$schema.complete_jobs"

  // Each write is a function of migration 0002 whose plan finds the claims through the primary
  // key and joins them to the batch by hash, whatever the statistics say (ADR 0006, "Stable plans").
  private def completeSql(schema: QueueSchemaName) =
    s"SELECT * FROM ${completeFunction(schema)}(?, ?)"

  // The claims a batch did not write, unless already written by the same statement before (its
  // answer lost): recorded as refused. Run only when some claim was not written.
  private def refuseSql(schema: QueueSchemaName) = s"SELECT $schema.refuse_writes(?, ?, ?, ?)"

  // The claims of `claims` whose id is not in `written`, recorded as refused; how many.
  private def refuse(
      c: Connection,
      kind: String,
      claims: Seq[Job.Claim],
      written: Set[Long],
      worker: String,
      schema: QueueSchemaName
  ): Int =
    val missing = claims.filterNot(x => written.contains(x.id))
    if missing.isEmpty then 0
    else
      Jdbc.prepared(c, refuseSql(schema)) { s =>
        s.setString(1, kind)
        s.setString(2, worker)
        s.setArray(3, Jdbc.longs(c, missing.map(_.id)))
        s.setArray(4, Jdbc.ints(c, missing.map(_.attempt)))
        Jdbc.rows(s)(_.getLong(1)).head.toInt
      }

  /** Marks the claims completed (see [[Fenced]]). */
  def complete(
      c: Connection,
      claims: Seq[Job.Claim],
      worker: String,
      schema: QueueSchemaName = QueueSchemaName.default
  ): Written =
    if claims.isEmpty then Written.none
    else
      val done = Jdbc.prepared(c, completeSql(schema)) { s =>
        s.setArray(1, Jdbc.longs(c, claims.map(_.id)))
        s.setArray(2, Jdbc.ints(c, claims.map(_.attempt)))
        Jdbc.rows(s)(_.getLong(1)).toSet
      }
      Written(done.size, 0, 0, refuse(c, "complete", claims, done, worker, schema))

  private def failSql(schema: QueueSchemaName) =
    s"SELECT job_id, job_state FROM $schema.fail_jobs(?, ?, ?, ?)"

  /** Records failed attempts: each job is available again after its delay, or discarded when it has
    * used its last attempt (see [[Fenced]]).
    */
  def fail(
      c: Connection,
      failures: Seq[Failure],
      worker: String,
      schema: QueueSchemaName = QueueSchemaName.default
  ): Written =
    if failures.isEmpty then Written.none
    else
      val done = Jdbc.prepared(c, failSql(schema)) { s =>
        s.setArray(1, Jdbc.longs(c, failures.map(_.claim.id)))
        s.setArray(2, Jdbc.ints(c, failures.map(_.claim.attempt)))
        s.setArray(3, Jdbc.texts(c, failures.map(_.error)))
        s.setArray(4, Jdbc.longs(c, failures.map(_.delay.toMillis)))
        Jdbc.rows(s)(r => r.getLong(1) -> JobState.parse(r.getString(2)))
      }
      val refused = refuse(c, "fail", failures.map(_.claim), done.map(_._1).toSet, worker, schema)
      val ended = (state: JobState) => done.count(_._2.contains(state))
      Written(0, ended(JobState.Available), ended(JobState.Discarded), refused)

  /** A claim ended for good by its handler ([[JobControl.Discard]]), with the reason. */
  final case class Discarded(claim: Job.Claim, reason: String)

  private def discardSql(schema: QueueSchemaName) = s"SELECT * FROM $schema.discard_jobs(?, ?, ?)"

  /** Discards the claims at once, whatever attempts they have left (migration 0004). */
  def discard(
      c: Connection,
      discards: Seq[Discarded],
      worker: String,
      schema: QueueSchemaName = QueueSchemaName.default
  ): Written =
    if discards.isEmpty then Written.none
    else
      val done = Jdbc.prepared(c, discardSql(schema)) { s =>
        s.setArray(1, Jdbc.longs(c, discards.map(_.claim.id)))
        s.setArray(2, Jdbc.ints(c, discards.map(_.claim.attempt)))
        s.setArray(3, Jdbc.texts(c, discards.map(_.reason)))
        Jdbc.rows(s)(_.getLong(1)).toSet
      }
      // Written as a failure is (discarded, failed_at set): refuse_writes' failure test applies.
      Written(0, 0, done.size, refuse(c, "discard", discards.map(_.claim), done, worker, schema))

  /** A claim put off by its handler ([[JobControl.Snooze]]) for `after`. */
  final case class Snoozed(claim: Job.Claim, after: FiniteDuration)

  private def snoozeSql(schema: QueueSchemaName) = s"SELECT * FROM $schema.snooze_jobs(?, ?, ?, ?)"

  /** Makes the claims held by `worker` available again after their delays, each without using an
    * attempt (migration 0004).
    */
  def snooze(
      c: Connection,
      snoozes: Seq[Snoozed],
      worker: String,
      schema: QueueSchemaName = QueueSchemaName.default
  ): Written =
    if snoozes.isEmpty then Written.none
    else
      val done = Jdbc.prepared(c, snoozeSql(schema)) { s =>
        s.setArray(1, Jdbc.longs(c, snoozes.map(_.claim.id)))
        s.setArray(2, Jdbc.ints(c, snoozes.map(_.claim.attempt)))
        s.setArray(3, Jdbc.longs(c, snoozes.map(_.after.toMillis)))
        s.setString(4, worker)
        Jdbc.rows(s)(_.getLong(1)).toSet
      }
      // A snooze repeated after its answer was lost finds the attempt already given back: counted
      // as refused (a count only; nothing is changed twice).
      Written(0, 0, 0, refuse(c, "snooze", snoozes.map(_.claim), done, worker, schema), done.size)

  private def renewSql(schema: QueueSchemaName) = s"SELECT * FROM $schema.renew_leases(?, ?, ?)"

  /** Renews the leases of `claims` to now + `lease`; the ids whose claim is no longer current (the
    * lease expired and the job went back, or it was cancelled or already ended).
    */
  def renew(
      c: Connection,
      claims: Seq[Job.Claim],
      lease: FiniteDuration,
      schema: QueueSchemaName = QueueSchemaName.default
  ): Set[Long] =
    if claims.isEmpty then Set.empty
    else
      Jdbc.prepared(c, renewSql(schema)) { s =>
        s.setArray(1, Jdbc.longs(c, claims.map(_.id)))
        s.setArray(2, Jdbc.ints(c, claims.map(_.attempt)))
        s.setLong(3, lease.toMillis)
        claims.map(_.id).toSet -- Jdbc.rows(s)(_.getLong(1))
      }

  private def cancelledSql(schema: QueueSchemaName) = s"SELECT * FROM $schema.cancelled_jobs(?)"

  /** Of the jobs `ids`, those cancelled (migration 0005): what a worker asks about the jobs whose
    * lease it could not renew.
    */
  def cancelled(
      c: Connection,
      ids: Seq[Long],
      schema: QueueSchemaName = QueueSchemaName.default
  ): Set[Long] =
    if ids.isEmpty then Set.empty
    else
      Jdbc.prepared(c, cancelledSql(schema)) { s =>
        s.setArray(1, Jdbc.longs(c, ids))
        Jdbc.rows(s)(_.getLong(1)).toSet
      }

  private def releaseSql(schema: QueueSchemaName) = s"SELECT $schema.release_jobs(?, ?, ?, ?)"

  /** Gives claims back at once (a graceful stop): available again, the attempt counted only for
    * those whose handler had started. Returns how many were still held. Not to be repeated after a
    * lost answer: an attempt given back uncounted can be claimed again under the same number.
    */
  def release(
      c: Connection,
      claims: Seq[(Job.Claim, Boolean)],
      worker: String,
      schema: QueueSchemaName = QueueSchemaName.default
  ): Int =
    if claims.isEmpty then 0
    else
      Jdbc.prepared(c, releaseSql(schema)) { s =>
        s.setArray(1, Jdbc.longs(c, claims.map(_._1.id)))
        s.setArray(2, Jdbc.ints(c, claims.map(_._1.attempt)))
        s.setArray(
          3,
          c.createArrayOf(
            "boolean",
            claims.map(x => java.lang.Boolean.valueOf(x._2): AnyRef).toArray
          )
        )
        s.setString(4, worker)
        Jdbc.rows(s)(_.getLong(1)).head.toInt
      }
