package weir.postgres.queue

import java.sql.Connection
import munit.CatsEffectSuite
import scala.concurrent.duration.*

/** The functions of migration 0004 that workers call (`weir.discard_jobs`, `weir.snooze_jobs`) keep
  * 0002's plan rules ([[QueuePlanSuite]] covers 0002's): the primary key only, no scan of the
  * table, no nested loop, in a table of 100 000 jobs with 200 running, before and after ANALYZE.
  */
class KindPlanSuite extends CatsEffectSuite:
  import QueueDbs.*
  import PlanProbe.Plan

  override def munitIOTimeout: Duration = 3.minutes

  private def exec(c: Connection, sql: String): Unit =
    val s = c.createStatement()
    try s.execute(sql): Unit
    finally s.close()

  private def probe(c: Connection): List[(String, List[Plan])] =
    val running = Jdbc.prepared(
      c,
      "SELECT id, attempt FROM weir.jobs WHERE lease_until IS NOT NULL ORDER BY id"
    )(s => Jdbc.rows(s)(r => r.getLong(1) -> r.getInt(2)))
    val (ids, attempts) = running.unzip
    val claims = (s: java.sql.PreparedStatement) =>
      s.setArray(1, Jdbc.longs(c, ids))
      s.setArray(2, Jdbc.ints(c, attempts))
    List(
      "discard" -> PlanProbe.plans(c, "SELECT count(*) FROM weir.discard_jobs(?, ?, ?)") { s =>
        claims(s)
        s.setArray(3, Jdbc.texts(c, ids.map(_ => "gone")))
      },
      "snooze" -> PlanProbe.plans(c, "SELECT count(*) FROM weir.snooze_jobs(?, ?, ?, 'probe')") {
        s =>
          claims(s)
          s.setArray(3, Jdbc.longs(c, ids.map(_ => 1000L)))
      }
    )

  test("discard_jobs and snooze_jobs read the primary key only, with and without statistics") {
    for
      db <- fresh("kindplans")
      seen <- sql(db) { c =>
        exec(c, "ALTER TABLE weir.jobs SET (autovacuum_enabled = off)")
        PlanProbe.install(c)
        exec(
          c,
          """INSERT INTO weir.jobs (payload, state, attempt, finished_at, lease_until, worker)
            |SELECT g::text, CASE WHEN g <= 99800 THEN 'completed' ELSE 'running' END, 1,
            |       CASE WHEN g <= 99800 THEN now() END,
            |       CASE WHEN g > 99800 THEN now() + interval '1 minute' END, 'probe'
            |  FROM generate_series(1, 100000) g""".stripMargin
        )
        exec(c, "VACUUM weir.jobs")
        // Each probe runs in a transaction rolled back (PlanProbe), so both see the same rows.
        val before = probe(c)
        exec(c, "ANALYZE weir.jobs")
        before.map((n, p) => s"$n, no statistics" -> p) ++ probe(c).map((n, p) =>
          s"$n, analyzed" -> p
        )
      }
    yield
      assertEquals(seen.size, 4)
      seen.foreach { (where, plans) =>
        assert(plans.nonEmpty, s"no plan seen for $where")
        val nodes = plans.flatMap(_.nodes)
        assert(!nodes.contains("Seq Scan"), s"a sequential scan: $where: $plans")
        assert(!nodes.contains("Nested Loop"), s"a nested loop: $where: $plans")
        assertEquals(plans.flatMap(_.indexes).toSet, Set("jobs_pkey"), s"$where: $plans")
      }
  }
