package weir.postgres.queue

import cats.effect.{Deferred, IO}
import cats.syntax.all.*
import munit.CatsEffectSuite
import scala.concurrent.duration.*
import weir.Attempts
import weir.postgres.PgSession

/** What issue 22's ui reads beside the jobs: a running worker's row in `weir.workers` (migration
  * 0011), written at each heartbeat and deleted when the worker stops, and every failed attempt of
  * a job in its `error_history` (migration 0010), appended by the statements a real worker already
  * runs. Everything asserted is read in the database.
  */
class WorkerPresenceSuite extends CatsEffectSuite:
  import QueueDbs.*

  override def munitIOTimeout: Duration = 2.minutes

  private def history(db: weir.postgres.PgTarget, id: Long): IO[Vector[(Int, String, String)]] =
    sql(db)(c =>
      Jdbc.prepared(
        c,
        """SELECT (e->>'attempt')::int, e->>'worker', e->>'error'
          |  FROM weir.jobs, jsonb_array_elements(error_history) WITH ORDINALITY AS h(e, n)
          | WHERE id = ? AND (e->>'at')::timestamptz <= now() ORDER BY n""".stripMargin
      ) { s =>
        s.setLong(1, id)
        Jdbc.rows(s)(r => (r.getInt(1), r.getString(2), r.getString(3)))
      }
    )

  test("a worker's row while it runs, its totals written at each beat, deleted when it stops") {
    for
      db <- fresh("presence")
      _ <- PgSession.open[IO](db).use(s => Enqueue.many(s, jobs(5)))
      gate <- Deferred[IO, Unit]
      _ <- Worker.resource[IO](db, quickQueue(), smallEngine, id = "host-1/presence").use { w =>
        def row(where: String) =
          val seen =
            long(db, s"SELECT count(*) FROM weir.workers WHERE id = 'host-1/presence' AND $where")
          (IO.sleep(50.millis) >> seen).iterateUntil(_ == 1L)
        // Five jobs held (their handlers wait at the gate), then none, each seen at a beat.
        val watching =
          row("""holding = '{"default": 5}' AND completed = 0""") >> gate.complete(()) >>
            row(
              "completed = 5 AND claimed = 5 AND holding = '{}' AND queues = ARRAY['default'] AND beat_at >= started_at"
            ) >> w.stop
        w.run(_ => gate.get).both(watching).void
      }
      after <- long(db, "SELECT count(*) FROM weir.workers")
    yield assertEquals(after, 0L)
  }

  test("every failed attempt in the job's error_history: attempt, worker, error, in order") {
    val failing = NewJob("fails").withMaxAttempts(Attempts(3))
    val discarded = NewJob("discard")
    for
      db <- fresh("errorhistory")
      ids <- PgSession.open[IO](db).use(s => List(failing, discarded).traverse(Enqueue.one(s, _)))
      _ <- Worker.resource[IO](db, quickQueue(), smallEngine, id = "host-1/errors").use { w =>
        w.run(
          job =>
            if job.payload == "discard" then IO.raiseError(JobControl.Discard("no handler <x>"))
            else IO.raiseError(new RuntimeException(s"boom ${job.attempt}")),
          untilEmpty = true
        )
      }
      first <- history(db, ids(0).id)
      second <- history(db, ids(1).id)
      states <- long(db, "SELECT count(*) FROM weir.jobs WHERE state = 'discarded'")
    yield
      assertEquals(states, 2L)
      assertEquals(
        first.map((a, w, e) => (a, w, e.contains(s"boom $a"))),
        Vector(
          (1, "host-1/errors", true),
          (2, "host-1/errors", true),
          (3, "host-1/errors", true)
        )
      )
      assertEquals(
        second.map((a, w, e) => (a, w, e.contains("no handler <x>"))),
        Vector((1, "host-1/errors", true))
      )
  }

  test("error_history keeps the latest 25 entries; a lease that ran out is one of them") {
    for
      db <- fresh("historycap")
      id <- PgSession.open[IO](db).use(Enqueue.one(_, NewJob("x").withMaxAttempts(Attempts(40))))
      _ <- sql(db) { c =>
        val st = c.createStatement()
        try
          (1 to 30).foreach { a =>
            st.execute(
              s"UPDATE weir.jobs SET state = 'running', attempt = $a, worker = 'w$a', lease_until = now() + interval '1 minute' WHERE id = ${id.id}"
            )
            st.execute(
              s"SELECT * FROM weir.fail_jobs(ARRAY[${id.id}]::bigint[], ARRAY[$a], ARRAY['e$a'], ARRAY[0]::bigint[])"
            )
          }
          st.execute(
            s"UPDATE weir.jobs SET state = 'running', attempt = 31, worker = 'w31', lease_until = now() - interval '1 second' WHERE id = ${id.id}"
          )
          st.execute("SELECT * FROM weir.reap_leases(10)")
        finally st.close()
      }
      kept <- history(db, id.id)
      errors <- long(db, s"SELECT errors FROM weir.jobs WHERE id = ${id.id}")
    yield
      assertEquals(errors, 31L)
      assertEquals(kept.map(_._1), (7 to 31).toVector)
      assertEquals(kept.last, (31, "w31", "lease expired (worker w31)"))
      assertEquals(kept.head, (7, "w7", "e7"))
  }
