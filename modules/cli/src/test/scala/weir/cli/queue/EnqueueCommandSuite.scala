package weir.cli.queue

import cats.effect.{ExitCode, IO}
import io.circe.parser.parse
import java.nio.file.{Files, Path}
import munit.CatsEffectSuite
import scala.concurrent.duration.*
import weir.cli.InProcess
import weir.cli.common.Exit
import weir.postgres.{PgTarget, TempPaths}
import weir.postgres.queue.QueueDbs

/** `weir enqueue` end to end against a real PostgreSQL (in process: the same `Main`): `--kind`,
  * `--timeout`, `--unique-key` and `--unique-for` land on the rows; a key found taken is said, with
  * the id of the job holding it, exit 0. Counted in the database.
  */
class EnqueueCommandSuite extends CatsEffectSuite with TempPaths.Cleanup:
  import QueueDbs.{fresh, long}

  override def munitIOTimeout: Duration = 2.minutes

  private def weir(args: String*): IO[(ExitCode, String)] =
    InProcess.run(args*).map((code, out, _) => (code, out))

  private def payloads(lines: String*): IO[Path] = IO.blocking {
    val file = tempPaths.file("weir-payloads", ".txt")
    Files.write(file, java.util.Arrays.asList(lines*))
  }

  private def enqueue(db: PgTarget, file: Path, more: String*): IO[(ExitCode, String)] =
    weir(
      (List("enqueue", file.toString, "--url", db.uriWithoutPassword, "--no-live") ++ more)*
    )

  test("--kind and --timeout: every job of the run gets them") {
    for
      db <- fresh("cliekind")
      file <- payloads("a", "b", "c")
      run <- enqueue(db, file, "--queue", "mail", "--kind", "welcome", "--timeout", "1.5s")
      rows <- long(
        db,
        "SELECT count(*) FROM weir.jobs WHERE queue = 'mail' AND kind = 'welcome' AND timeout_ms = 1500"
      )
    yield
      assertEquals(run._1, Exit.Ok)
      assert(run._2.startsWith("enqueued 3 jobs to queue mail"), run._2)
      assertEquals(rows, 3L)
  }

  test("--unique-key: the first run enqueues; the second says the key is taken, by which job") {
    for
      db <- fresh("clieuniq")
      file <- payloads("42")
      args = List("--kind", "report", "--unique-key", "report-42", "--unique-for", "1h")
      first <- enqueue(db, file, args*)
      id <- long(db, "SELECT id FROM weir.jobs")
      second <- enqueue(db, file, args*)
      json <- enqueue(db, file, (args ++ List("--format", "json"))*)
      rows <- long(
        db,
        """SELECT count(*) FROM weir.jobs WHERE unique_key = 'report-42' AND kind = 'report'
          |   AND unique_period = date_trunc('hour', created_at)""".stripMargin
      )
    yield
      assertEquals((first._1, second._1, json._1), (Exit.Ok, Exit.Ok, Exit.Ok))
      assert(first._2.startsWith("enqueued 1 jobs to queue default"), first._2)
      assert(!first._2.contains("not enqueued"), first._2)
      assert(second._2.startsWith("enqueued 0 jobs to queue default"), second._2)
      assert(
        second._2.contains(s"not enqueued: 1 job whose unique key 'report-42' is taken by job $id"),
        second._2
      )
      val fields = parse(json._2).toOption.get.hcursor
      assertEquals(fields.get[Long]("enqueued"), Right(0L))
      assertEquals(fields.get[Long]("taken"), Right(1L))
      assertEquals(fields.get[List[Long]]("heldBy"), Right(List(id)))
      assertEquals(fields.get[String]("uniqueKey"), Right("report-42"))
      assertEquals(rows, 1L)
  }

  test("a key for many payloads: the first is enqueued, the others name it as the holder") {
    for
      db <- fresh("cliemany")
      file <- payloads("1", "2", "3")
      run <- enqueue(db, file, "--unique-key", "k")
      id <- long(db, "SELECT min(id) FROM weir.jobs")
      rows <- long(db, "SELECT count(*) FROM weir.jobs")
    yield
      assertEquals(run._1, Exit.Ok)
      assert(run._2.startsWith("enqueued 1 jobs"), run._2)
      assert(run._2.contains(s"not enqueued: 2 jobs whose unique key 'k' is taken by job $id"))
      assertEquals(rows, 1L)
  }
