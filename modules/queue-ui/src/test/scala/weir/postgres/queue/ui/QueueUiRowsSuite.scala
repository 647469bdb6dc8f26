package weir.postgres.queue.ui

import cats.effect.IO
import cats.syntax.all.*
import munit.CatsEffectSuite
import org.http4s.*
import org.http4s.implicits.*
import scala.concurrent.duration.*
import weir.postgres.PgSession

/** What the ui reads beside the jobs' states, on a real PostgreSQL: a job's every failed attempt
  * (migration 0010), the workers' heartbeat rows (migration 0011), and its statements' settings.
  */
class QueueUiRowsSuite extends CatsEffectSuite:
  import weir.postgres.queue.QueueDbs.*
  import UiFixtures.*

  override def munitIOTimeout: Duration = 2.minutes

  test("a job's page lists every failed attempt; workers and running jobs come from live rows") {
    for
      db <- fresh("uihistory")
      ids <- enqueue(db, Vector(job("h")))
      id = ids.head
      // Two attempts failed through the queue's own statements (weir.fail_jobs, migration 0010).
      _ <- List(1 -> "first <b>failure</b>", 2 -> "second failure").traverse_ { (a, e) =>
        exec(
          db,
          s"UPDATE weir.jobs SET state = 'running', attempt = $a, worker = 'host-$a/w', lease_until = now() + interval '1 minute' WHERE id = $id"
        ) >> exec(
          db,
          s"SELECT * FROM weir.fail_jobs(ARRAY[$id]::bigint[], ARRAY[$a], ARRAY['$e'], ARRAY[0]::bigint[])"
        )
      }
      // A worker's row as its heartbeat writes it (migration 0011), one that beat 5 minutes ago.
      _ <- exec(
        db,
        """INSERT INTO weir.workers (id, queues, holding, claimed, completed, failed, beat_at)
          |VALUES ('host-9/live', ARRAY['mail','sms'], '{"mail": 3}', 12, 10, 2, now()),
          |       ('host-8/silent', ARRAY['mail'], '{"mail": 100}', 1, 1, 0, now() - interval '5 minutes')""".stripMargin
      )
      pages <- ui(db)(c => List(s"/jobs/$id", "/workers", "/").traverse(c.get))
    yield
      val List((r1, detail), (r2, workers), (r3, overview)) = pages: @unchecked
      assertEquals((r1.status, r2.status, r3.status), (Status.Ok, Status.Ok, Status.Ok))
      // Running jobs and workers of a queue: from the rows that beat in the last minute only.
      def cells(queue: String) =
        val row = overview.split("<tr").find(_.contains(s">$queue</a>")).getOrElse(fail(overview))
        "<td[^>]*>(.*?)</td>".r.findAllMatchIn(row).map(_.group(1).replaceAll("<[^>]+>", "")).toList
      assertEquals(cells("mail").slice(5, 7), List("3", "1"), overview)
      assertEquals(cells("sms").slice(5, 7), List("0", "1"), overview)
      val history = detail.split("""id="job-history"""").lift(1).getOrElse(fail(detail))
      val second = history.indexOf("second failure")
      val first = history.indexOf("first &lt;b&gt;failure&lt;/b&gt;")
      assert(second >= 0 && first > second, history)
      assert(history.contains("host-1/w") && history.contains("host-2/w"), history)
      assert(!detail.contains("<b>failure"), detail)
      val live = workers.split("<tr").find(_.contains("host-9/live")).getOrElse(fail(workers))
      assert(live.contains("mail, sms") && live.contains(">10<") && live.contains(">2<"), live)
      val silent = workers.split("<tr").find(_.contains("host-8/silent")).getOrElse(fail(workers))
      assert(silent.contains("""class="err""""), silent)
      assert(!live.contains("""class="err""""), live)
  }

  test(
    "the pages turn PostgreSQL's JIT off for their own statements only: the session keeps its settings"
  ) {
    for
      db <- fresh("uijit")
      _ <- enqueue(db, Vector(job("a")))
      seen <- PgSession.open[IO](db).use { session =>
        val settings = session.withConnection { c =>
          val st = c.createStatement()
          try
            val r = st.executeQuery("SHOW jit"); r.next()
            (c.getAutoCommit, r.getString(1))
          finally st.close()
        }
        for
          before <- settings
          routes <- QueueUi.routes[IO](cats.effect.Resource.pure(session), QueueUiSettings.default)
          pages <- UiClient(routes.orNotFound)
            .flatMap(c => List("/", "/workers", "/jobs").traverse(c.get))
          after <- settings
        yield (before, pages.map(_._1.status), after)
      }
    yield
      val (before, statuses, after) = seen
      assertEquals(before, (true, "on"))
      assertEquals(statuses, List(Status.Ok, Status.Ok, Status.Ok))
      assertEquals(after, before)
  }
