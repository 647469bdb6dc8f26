package weir.postgres.queue

import cats.effect.IO
import cats.syntax.all.*
import java.sql.{Connection, PreparedStatement}
import munit.CatsEffectSuite
import scala.concurrent.duration.*

/** Every statement a worker runs keeps its plan whatever the statistics say (issue 19: after an
  * ANALYZE that saw few running jobs, each completion scanned every running job). The table is
  * taken through the states a real queue passes through, at 100 000 jobs and at a million; after
  * each change it is vacuumed (as autovacuum would), looked at with no column statistics, then
  * analyzed and looked at again (autovacuum is off on the table, so nothing analyzes behind the
  * test's back). In each, every queue function runs once (rolled back) and the plan it really ran
  * is read from `auto_explain`: the expected indexes only, no sequential scan, no nested loop; and
  * the buffers it touched at a million jobs are at most 4x (+100) those at 100 000. A plan that
  * reads the table grows tenfold; one batch of lookups grows with the btree's depth (3x seen: a
  * level deeper, and an index scan where a bitmap scan read each heap page once).
  */
class QueuePlanSuite extends CatsEffectSuite:
  import QueueDbs.*
  import PlanProbe.Plan

  override def munitIOTimeout: Duration = 5.minutes

  private val sizes = List(100000, 1000000)

  // The running claims a write is given (up to 1 000 of them), or made-up ones when none runs:
  // the plan is made for the call, before any row is read, so it is the same either way.
  private final case class Batch(ids: Seq[Long], attempts: Seq[Int])

  private type Bind = (Connection, PreparedStatement, Batch) => Unit

  private val none: Bind = (_, _, _) => ()

  private val claims: Bind = (c, s, b) =>
    s.setArray(1, Jdbc.longs(c, b.ids))
    s.setArray(2, Jdbc.ints(c, b.attempts))

  // A call, the indexes its plans may read, and whether its cost must stay flat in the table's size.
  private final case class Call(
      name: String,
      sql: String,
      indexes: Set[String],
      bind: Bind = none,
      flat: Boolean = true
  )

  private val calls = List(
    Call(
      "claim",
      "SELECT count(*) FROM weir.claim_jobs('default', 1000, 60000, 'probe', NULL, NULL, NULL)",
      // queues_pkey: whether the queue is paused (migration 0005), once per call.
      Set("jobs_claim", "jobs_pkey", "queues_pkey")
    ),
    Call(
      "claim after a position",
      "SELECT count(*) FROM weir.claim_jobs('default', 1000, 60000, 'probe', 0::smallint, now() - interval '1 day', 5000)",
      Set("jobs_claim", "jobs_pkey", "queues_pkey")
    ),
    Call("complete", "SELECT count(*) FROM weir.complete_jobs(?, ?)", Set("jobs_pkey"), claims),
    Call(
      "fail",
      "SELECT count(*) FROM weir.fail_jobs(?, ?, ?, ?)",
      Set("jobs_pkey"),
      (c, s, b) =>
        claims(c, s, b)
        s.setArray(3, Jdbc.texts(c, b.ids.map(_ => "boom")))
        s.setArray(4, Jdbc.longs(c, b.ids.map(_ => 1000L)))
    ),
    Call("renew", "SELECT count(*) FROM weir.renew_leases(?, ?, 60000)", Set("jobs_pkey"), claims),
    Call(
      "cancelled",
      "SELECT count(*) FROM weir.cancelled_jobs(?)",
      Set("jobs_pkey"),
      (c, s, b) => s.setArray(1, Jdbc.longs(c, b.ids))
    ),
    Call(
      "release",
      "SELECT weir.release_jobs(?, ?, ?, 'probe')",
      Set("jobs_pkey"),
      (c, s, b) =>
        claims(c, s, b)
        s.setArray(3, c.createArrayOf("boolean", b.ids.map(_ => java.lang.Boolean.TRUE).toArray))
    ),
    Call(
      "refuse",
      "SELECT weir.refuse_writes('complete', 'probe', ?, ?)",
      Set("jobs_pkey"),
      claims
    ),
    Call("reap", "SELECT * FROM weir.reap_leases(1000)", Set("jobs_lease", "jobs_pkey")),
    Call("sweep", "SELECT weir.sweep_jobs(0, 1000, true)", Set("jobs_finished", "jobs_pkey")),
    Call("pending", "SELECT weir.queue_pending('default')", Set("jobs_claim", "jobs_lease")),
    // Counting the completed jobs reads them all (through their index): not flat, by its nature.
    Call(
      "stats",
      "SELECT * FROM weir.queue_stats('default')",
      Set("jobs_claim", "jobs_lease", "jobs_finished", "jobs_discarded"),
      flat = false
    )
  )

  private def exec(c: Connection, sql: String): Unit =
    val s = c.createStatement()
    try s.execute(sql): Unit
    finally s.close()

  private def batch(c: Connection): Batch =
    val running = Jdbc.prepared(
      c,
      "SELECT id, attempt FROM weir.jobs WHERE lease_until IS NOT NULL ORDER BY id LIMIT 1000"
    )(s => Jdbc.rows(s)(r => r.getLong(1) -> r.getInt(2)))
    if running.isEmpty then Batch((1L to 1000L).toVector, Vector.fill(1000)(1))
    else Batch(running.map(_._1), running.map(_._2))

  // Every call's plans in the table's present state.
  private def probe(c: Connection): Map[String, List[Plan]] =
    val b = batch(c)
    calls.map(call => call.name -> PlanProbe.plans(c, call.sql)(call.bind(c, _, b))).toMap

  // The states a queue of `size` jobs passes through, each a change to the table.
  private def states(size: Int): List[(String, String)] = List(
    "empty" -> "SELECT 1",
    "all available" ->
      s"INSERT INTO weir.jobs (payload) SELECT g::text FROM generate_series(1, $size) g",
    "all completed but 200 running" ->
      s"""UPDATE weir.jobs SET attempt = 1,
         |       state = CASE WHEN id <= ${size - 200} THEN 'completed' ELSE 'running' END,
         |       finished_at = CASE WHEN id <= ${size - 200} THEN now() - interval '1 hour' END,
         |       lease_until = CASE WHEN id > ${size - 200} THEN now() - interval '1 second' END,
         |       worker = 'probe'""".stripMargin,
    // A stall: the workers claimed thousands more before any of them was written back.
    "5 000 running after a stall" ->
      s"""INSERT INTO weir.jobs (payload, state, attempt, lease_until, worker)
         |SELECT g::text, 'running', 1, now() + interval '1 minute', 'probe'
         |  FROM generate_series(1, 5000) g""".stripMargin
  )

  // Every call's plans in every state of a queue of `size` jobs, on a database of its own.
  private def walk(size: Int): IO[List[(String, Map[String, List[Plan]])]] =
    fresh(s"plans$size").flatMap { db =>
      sql(db) { c =>
        exec(c, "ALTER TABLE weir.jobs SET (autovacuum_enabled = off)")
        PlanProbe.install(c)
        states(size).flatMap { (state, change) =>
          exec(c, change)
          exec(c, "VACUUM weir.jobs")
          val unanalyzed = s"$state, no statistics" -> probe(c)
          exec(c, "ANALYZE weir.jobs")
          List(unanalyzed, s"$state, analyzed" -> probe(c))
        }
      }
    }

  test(
    "each queue function keeps its plan through a queue's states, before and after ANALYZE: its indexes only, no scan of the table, no nested loop, buffers flat from 100 000 to a million jobs"
  ) {
    sizes.traverse(walk).map { bySize =>
      for (size, seen) <- sizes.zip(bySize); (state, plans) <- seen; call <- calls do
        val ps = plans(call.name)
        val where = s"${call.name} at $size jobs, $state: ${ps.mkString("; ")}"
        assert(ps.nonEmpty, s"no plan seen for $where")
        val nodes = ps.flatMap(_.nodes)
        assert(!nodes.contains("Seq Scan"), s"a sequential scan: $where")
        assert(!nodes.contains("Nested Loop"), s"a nested loop: $where")
        assertEquals(ps.flatMap(_.indexes).toSet, call.indexes, where)
      val List(small, large) = bySize.map(_.toMap): @unchecked
      for (state, plans) <- large; call <- calls if call.flat do
        val (few, many) = (small(state)(call.name), plans(call.name))
        val (a, b) = (few.map(_.blocks).sum, many.map(_.blocks).sum)
        assert(
          b <= 4 * a + 100,
          s"${call.name}, $state: $b blocks at ${sizes.last} jobs against $a at ${sizes.head}: ${many.mkString("; ")}"
        )
    }
  }
