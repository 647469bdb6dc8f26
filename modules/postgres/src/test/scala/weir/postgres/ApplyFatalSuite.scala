package weir.postgres

import cats.effect.IO
import fs2.Stream
import java.io.{ByteArrayInputStream, InputStream}
import java.nio.charset.StandardCharsets.UTF_8
import munit.FunSuite
import scala.concurrent.Await
import scala.concurrent.duration.*
import weir.WeirError

/** A fatal error of the JVM while a file is read (docs/adr/0013-apply-sql-speed.md, "Round 3"): the
  * input throws an `OutOfMemoryError` (thrown by the test: the test JVM's heap is never exhausted)
  * or a `StackOverflowError` after the server has applied part of the file. The apply must end with
  * [[ApplyError.Fatal]] naming the file and line, its transaction rolled back on a real PostgreSQL
  * ([[TestPg]]): no row in the table, though the server ran the inserts (a sequence, which no
  * rollback undoes, counts them).
  *
  * Each test waits for its program on the test's own thread, not in a cats-effect runtime, with a
  * bound that only guards against a hang: when the error is lost (the regression), cats-effect's
  * fatal-error path shuts every runtime down, the munit-cats-effect suite's own timeout with them,
  * and the suite hung; now the wait times out and the test fails.
  */
class ApplyFatalSuite extends FunSuite with TempPaths.Cleanup:

  // Guards against a hang only: the apply ends in well under a second when the error reaches it.
  private val hang = 60.seconds
  override val munitTimeout: Duration = 2 * hang

  private def complete[A](program: IO[A]): A =
    Await.result(program.unsafeToFuture()(cats.effect.unsafe.IORuntime.global), hang)

  // More statements than a pipelined group (ApplySettings.handOff, 256), so that the first group is
  // sent while the input is still being read.
  private val inserts = 600
  private val text =
    (1 to inserts).map(_ => "INSERT INTO t VALUES (nextval('s'));\n").mkString.getBytes(UTF_8)

  /** `text`, then a read that waits until the server has run `applied` inserts and throws `error`
    * (or throws it anyway after 30 s, so that the test cannot wait forever).
    */
  private def failingInput(db: PgTarget, applied: Long, error: Throwable): InputStream =
    new InputStream:
      private val first = new ByteArrayInputStream(text)
      def read(): Int = throw new UnsupportedOperationException("read in blocks only")
      override def read(b: Array[Byte], off: Int, len: Int): Int =
        if first.available > 0 then first.read(b, off, len)
        else
          val deadline = System.nanoTime + 30.seconds.toNanos
          while lastValue(db) < applied && System.nanoTime < deadline do Thread.sleep(20)
          throw error

  // The sequence's last value, on a connection of its own (blocking: called from the read).
  private def lastValue(db: PgTarget): Long =
    import cats.effect.unsafe.implicits.global
    PgSession
      .open[IO](db)
      .use(_.query("SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM s"))
      .map(_.headOption.flatMap(_.head).fold(0L)(_.toLong))
      .unsafeRunSync()

  private def scalar(target: PgTarget, sql: String): IO[Option[String]] =
    PgSession.open[IO](target).use(_.query(sql)).map(_.headOption.flatMap(_.head))

  private def applyFailing(prefix: String, error: Throwable): IO[(ApplyReport, String, String)] =
    for
      db <- TestPg.database(prefix)
      _ <- PgSession
        .open[IO](db)
        .use(s => s.update("CREATE TABLE t (id bigint)") >> s.update("CREATE SEQUENCE s"))
      path <- IO.blocking(tempPaths.file("weir-fatal-", ".sql"))
      file = SqlFile(path, "big.sql", text.length.toLong + 1000, transactional = true)
      report <- PgSession.open[IO](db).use { session =>
        SqlApplier
          .reading[IO](session, ApplySettings.default, _ => failingInput(db, 256, error))
          .flatMap(_.run(List(file)))
      }
      rows <- scalar(db, "SELECT count(*) FROM t")
      ran <- scalar(db, "SELECT last_value FROM s")
    yield (report, rows.getOrElse("?"), ran.getOrElse("?"))

  test("out of memory while reading: the apply fails, rolls the file back and names the line") {
    val oom = new OutOfMemoryError("Java heap space (thrown by the test)")
    val (report, rows, ran) = complete(applyFailing("oom", oom))
    report.outcome match
      case ApplyReport.Outcome.Failed(e: ApplyError.Fatal) =>
        assertEquals(e.cause, oom)
        assertEquals(
          (e.file, e.line, e.reading, e.transactional),
          ("big.sql", Some(inserts + 1L), true, Some(true))
        )
        val message = e.getMessage
        assert(
          message.startsWith(s"out of memory while reading big.sql at line ${inserts + 1}; "),
          message
        )
        assert(
          message.contains("nothing of big.sql was applied: its transaction was rolled back")
        )
        assert(message.contains("Give the JVM more heap than its "), message)
      case other => fail(s"expected ApplyError.Fatal, got $other")
    assertEquals(report.files, Nil)
    assert(ran.toLong >= 256L, s"the server ran $ran inserts before the error")
    assertEquals(rows, "0")
  }

  test("a stack overflow while reading is contained the same way") {
    val (report, rows, ran) = complete(applyFailing("soe", new StackOverflowError()))
    report.outcome match
      case ApplyReport.Outcome.Failed(e: ApplyError.Fatal) =>
        assert(e.cause.isInstanceOf[StackOverflowError])
        assert(e.getMessage.startsWith("stack overflow while reading big.sql at line "))
        assert(e.getMessage.endsWith("Give its threads more stack: -Xss16m"), e.getMessage)
      case other => fail(s"expected ApplyError.Fatal, got $other")
    assert(ran.toLong >= 256L, s"the server ran $ran inserts before the error")
    assertEquals(rows, "0")
  }

  test("the splitter places a fatal error of its input at the line reading had reached") {
    val oom = new OutOfMemoryError("test")
    val out = complete(
      Stream
        .emits("SELECT 1;\nSELECT 2;\nSELECT".getBytes(UTF_8).toSeq)
        .covary[IO]
        .append(Stream.raiseError[IO](WeirError.Fatal(oom)))
        .through(SqlSplitter.pipe[IO]("f.sql"))
        .attempt
        .compile
        .toList
    )
    assertEquals(
      out.collect { case Right(s: SqlPiece.Statement) => s.sql },
      List("SELECT 1", "SELECT 2")
    )
    assertEquals(
      out.last,
      Left(ApplyError.Fatal("f.sql", Some(3L), oom, reading = true))
    )
  }
