package weir.cli.queue

import cats.effect.{ExitCode, IO}
import cats.syntax.all.*
import munit.CatsEffectSuite
import scala.concurrent.duration.*
import weir.cli.InProcess
import weir.cli.common.Exit
import weir.postgres.TestPg
import weir.postgres.queue.QueueDbs

/** `--schema NAME` on `weir queue init`, `weir enqueue`, `weir worker` and `weir queue stats`, in
  * process (the same `Main`) against a real PostgreSQL: two queues in two schemas of one database,
  * each command touching its own; a bad name refused before anything connects (exit 2).
  */
class QueueSchemaCommandSuite extends CatsEffectSuite:
  import QueueDbs.long

  override def munitIOTimeout: Duration = 2.minutes

  private def weir(args: String*): IO[(ExitCode, String, String)] = InProcess.run(args*)

  test("init, enqueue, worker and stats with --schema: two queues side by side, none in weir") {
    for
      db <- TestPg.database("clischema")
      url = List("--url", db.uriWithoutPassword)
      inits <- List("jobs", "billing_queue").traverse(s =>
        weir((List("queue", "init", "--schema", s) ++ url)*)
      )
      a <- weir((List("enqueue", "--schema", "jobs", "--ids", "0..5", "--no-live") ++ url)*)
      b <- weir(
        (List("enqueue", "--schema", "billing_queue", "--ids", "0..3", "--no-live") ++ url)*
      )
      worked <- weir(
        (List("worker", "--schema", "jobs", "--sleep", "0", "--until-empty", "--no-live") ++ url)*
      )
      stats <- weir((List("queue", "stats", "--schema", "billing_queue") ++ url)*)
      noQueue <- weir((List("queue", "stats") ++ url)*)
      counts <- long(
        db,
        """SELECT (SELECT count(*) FROM jobs.jobs WHERE state = 'completed') * 100
          |     + (SELECT count(*) FROM billing_queue.jobs WHERE state = 'available')""".stripMargin
      )
      weirSchema <- long(db, "SELECT count(*) FROM pg_namespace WHERE nspname = 'weir'")
    yield
      assertEquals(inits.map(_._1), List(Exit.Ok, Exit.Ok))
      assertEquals((a._1, b._1, worked._1, stats._1), (Exit.Ok, Exit.Ok, Exit.Ok, Exit.Ok))
      assert(stats._2.contains("available 3"), stats._2)
      assertEquals(counts, 5 * 100L + 3)
      assertEquals(weirSchema, 0L)
      assertEquals(noQueue._1, Exit.BadInput)
      assert(noQueue._3.contains("no table weir.jobs"), noQueue._3)
  }

  test("a bad --schema is refused with what is wrong, exit 2, nothing connects") {
    for
      upper <- weir(
        "enqueue",
        "--schema",
        "Jobs",
        "--ids",
        "0..1",
        "--url",
        "postgresql://x@127.0.0.1:1/db"
      )
      keyword <- weir("worker", "--schema", "select", "--sleep", "0")
      dash <- weir("queue", "init", "--schema", "billing-queue")
    yield
      assertEquals((upper._1, keyword._1, dash._1), (Exit.BadInput, Exit.BadInput, Exit.BadInput))
      assert(
        upper._3.contains(
          "--schema: the queue schema 'Jobs' is not a plain lowercase SQL identifier: use a-z, 0-9 and _, starting with a letter or _ (e.g. jobs, billing_queue)"
        ),
        upper._3
      )
      assert(keyword._3.contains("'select' is a keyword PostgreSQL reserves"), keyword._3)
      assert(dash._3.contains("'billing-queue' is not a plain lowercase SQL identifier"), dash._3)
  }
