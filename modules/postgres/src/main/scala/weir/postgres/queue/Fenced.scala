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
object Fenced:

  /** What one batch did. */
  final case class Written(completed: Int, retried: Int, discarded: Int, rejected: Int):
    def +(o: Written): Written =
      Written(
        completed + o.completed,
        retried + o.retried,
        discarded + o.discarded,
        rejected + o.rejected
      )

  object Written:
    val none: Written = Written(0, 0, 0, 0)

  /** A failed attempt: its error, and the delay before the job may run again. */
  final case class Failure(claim: Job.Claim, error: String, delay: FiniteDuration)

  private val completeSql =
    """UPDATE weir.jobs j
      |   SET state = 'completed', finished_at = now(), lease_until = NULL
      |  FROM unnest(?::bigint[], ?::integer[]) AS i(id, attempt)
      | WHERE j.id = i.id AND j.attempt = i.attempt AND j.state = 'running'
      |RETURNING j.id""".stripMargin

  // The claims a batch did not write, unless already written by the same statement before (its
  // answer lost): recorded as refused. Run only when some claim was not written.
  private def refuseSql(kind: String, alreadyWritten: String) =
    s"""INSERT INTO weir.job_rejections (job_id, attempt, kind, worker)
       |SELECT i.id, i.attempt, '$kind', ? FROM unnest(?::bigint[], ?::integer[]) AS i(id, attempt)
       | WHERE NOT EXISTS (SELECT 1 FROM weir.jobs j
       |                    WHERE j.id = i.id AND j.attempt = i.attempt AND $alreadyWritten)
       |RETURNING 1""".stripMargin

  private val refuseCompleteSql = refuseSql("complete", "j.state = 'completed'")
  private val refuseFailSql =
    refuseSql("fail", "j.state IN ('available', 'discarded') AND j.failed_at >= j.attempted_at")

  // The claims of `claims` whose id is not in `written`, recorded as refused; how many.
  private def refuse(
      c: Connection,
      sql: String,
      claims: Seq[Job.Claim],
      written: Set[Long],
      worker: String
  ): Int =
    val missing = claims.filterNot(x => written.contains(x.id))
    if missing.isEmpty then 0
    else
      Jdbc.prepared(c, sql) { s =>
        s.setString(1, worker)
        s.setArray(2, Jdbc.longs(c, missing.map(_.id)))
        s.setArray(3, Jdbc.ints(c, missing.map(_.attempt)))
        Jdbc.rows(s)(_ => 1).size
      }

  /** Marks the claims completed (see [[Fenced]]). */
  def complete(c: Connection, claims: Seq[Job.Claim], worker: String): Written =
    if claims.isEmpty then Written.none
    else
      val done = Jdbc.prepared(c, completeSql) { s =>
        s.setArray(1, Jdbc.longs(c, claims.map(_.id)))
        s.setArray(2, Jdbc.ints(c, claims.map(_.attempt)))
        Jdbc.rows(s)(_.getLong(1)).toSet
      }
      Written(done.size, 0, 0, refuse(c, refuseCompleteSql, claims, done, worker))

  private val failSql =
    """UPDATE weir.jobs j
      |   SET state = CASE WHEN j.attempt >= j.max_attempts THEN 'discarded' ELSE 'available' END,
      |       run_at = CASE WHEN j.attempt >= j.max_attempts THEN j.run_at
      |                     ELSE now() + i.delay_ms * interval '1 millisecond' END,
      |       finished_at = CASE WHEN j.attempt >= j.max_attempts THEN now() END,
      |       errors = j.errors + 1, last_error = i.error, failed_at = now(),
      |       lease_until = NULL, worker = NULL
      |  FROM unnest(?::bigint[], ?::integer[], ?::text[], ?::bigint[]) AS i(id, attempt, error, delay_ms)
      | WHERE j.id = i.id AND j.attempt = i.attempt AND j.state = 'running'
      |RETURNING j.id, j.state""".stripMargin

  /** Records failed attempts: each job is available again after its delay, or discarded when it has
    * used its last attempt (see [[Fenced]]).
    */
  def fail(c: Connection, failures: Seq[Failure], worker: String): Written =
    if failures.isEmpty then Written.none
    else
      val done = Jdbc.prepared(c, failSql) { s =>
        s.setArray(1, Jdbc.longs(c, failures.map(_.claim.id)))
        s.setArray(2, Jdbc.ints(c, failures.map(_.claim.attempt)))
        s.setArray(3, Jdbc.texts(c, failures.map(_.error)))
        s.setArray(4, Jdbc.longs(c, failures.map(_.delay.toMillis)))
        Jdbc.rows(s)(r => r.getLong(1) -> r.getString(2))
      }
      val refused = refuse(c, refuseFailSql, failures.map(_.claim), done.map(_._1).toSet, worker)
      Written(0, done.count(_._2 == "available"), done.count(_._2 == "discarded"), refused)

  private val renewSql =
    """UPDATE weir.jobs j SET lease_until = now() + ? * interval '1 millisecond'
      |  FROM unnest(?::bigint[], ?::integer[]) AS i(id, attempt)
      | WHERE j.id = i.id AND j.attempt = i.attempt AND j.state = 'running'
      |RETURNING j.id""".stripMargin

  /** Renews the leases of `claims` to now + `lease`; the ids whose claim is no longer current (the
    * lease expired and the job went back, or it was cancelled or already ended).
    */
  def renew(c: Connection, claims: Seq[Job.Claim], lease: FiniteDuration): Set[Long] =
    if claims.isEmpty then Set.empty
    else
      Jdbc.prepared(c, renewSql) { s =>
        s.setLong(1, lease.toMillis)
        s.setArray(2, Jdbc.longs(c, claims.map(_.id)))
        s.setArray(3, Jdbc.ints(c, claims.map(_.attempt)))
        claims.map(_.id).toSet -- Jdbc.rows(s)(_.getLong(1))
      }

  private val releaseSql =
    """UPDATE weir.jobs j
      |   SET state = 'available', lease_until = NULL, worker = NULL,
      |       attempt = j.attempt - CASE WHEN i.started THEN 0 ELSE 1 END
      |  FROM unnest(?::bigint[], ?::integer[], ?::boolean[]) AS i(id, attempt, started)
      | WHERE j.id = i.id AND j.attempt = i.attempt AND j.state = 'running'
      |   AND j.worker = ?""".stripMargin

  /** Gives claims back at once (a graceful stop): available again, the attempt counted only for
    * those whose handler had started. Returns how many were still held. Not to be repeated after a
    * lost answer: an attempt given back uncounted can be claimed again under the same number.
    */
  def release(c: Connection, claims: Seq[(Job.Claim, Boolean)], worker: String): Int =
    if claims.isEmpty then 0
    else
      Jdbc.prepared(c, releaseSql) { s =>
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
        s.executeUpdate()
      }
