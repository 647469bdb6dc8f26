package weir.postgres.queue

import cats.effect.IO
import cats.syntax.all.*
import java.time.Instant
import munit.CatsEffectSuite
import scala.concurrent.duration.*
import weir.postgres.PgSession
import weir.Attempts

/** The queue's statements against a real PostgreSQL ([[TestPg]]): what the database holds after
  * each, counted there, never timed.
  */
class QueueSuite extends CatsEffectSuite:
  import QueueDbs.*

  override def munitIOTimeout: Duration = 2.minutes

  private val w = "test-worker"

  // Claims up to `n` jobs for `worker` under a 1 ms lease (the server's clock), then waits past it.
  private def claimedAndExpired(db: weir.postgres.PgTarget, n: Int, worker: String) =
    sql(db)(c => Claimer.claim(c, NewJob.defaultQueue, n, 1.milli, worker)) <* IO.sleep(20.millis)

  test("the schema is applied through weir's migrations, once") {
    for
      db <- fresh("schema")
      again <- PgSession.open[IO](db).use(QueueSchema.migrate[IO])
      recorded <- long(db, "SELECT count(*) FROM weir.migrations WHERE name = '0001_weir_jobs.sql'")
    yield
      assertEquals(again.map(_.report.files.size), Right(0))
      assertEquals(recorded, 1L)
  }

  test("missing names the queue's migrations a database has not applied") {
    for
      db <- fresh("missing")
      none <- PgSession.open[IO](db).use(QueueSchema.missing[IO])
      _ <- sql(db)(c =>
        Jdbc.prepared(c, "DELETE FROM weir.migrations WHERE name = '0002_weir_stable_plans.sql'")(
          _.executeUpdate()
        )
      )
      one <- PgSession.open[IO](db).use(QueueSchema.missing[IO])
      bare <- weir.postgres.TestPg.database("bare")
      all <- PgSession.open[IO](bare).use(QueueSchema.missing[IO])
    yield
      assertEquals(none, Nil)
      assertEquals(one, List("0002_weir_stable_plans.sql"))
      assertEquals(all, QueueSchema.files)
  }

  test("the migrations leave their session in autocommit: a job enqueued after them is committed") {
    for
      db <- weir.postgres.TestPg.database("autocommit")
      inTransaction <- PgSession.open[IO](db).use { s =>
        QueueSchema.migrate[IO](s) >> s.inTransaction.flatTap(_ => Enqueue.one(s, NewJob("x")))
      }
      seen <- long(db, "SELECT count(*) FROM weir.jobs")
    yield
      assertEquals(inTransaction, false)
      assertEquals(seen, 1L)
  }

  test("COPY and insert keep payloads exactly: tabs, newlines, backslashes, quotes, unicode") {
    val odd = Vector("a\tb", "line\nnext\r", "back\\slash \\N", "it's \"q\"", "ünï ✓", "")
    for
      db <- fresh("payload")
      copied <- PgSession.open[IO](db).use(s => Enqueue.many(s, odd.map(NewJob(_))))
      keyed <- PgSession
        .open[IO](db)
        .use(s => Enqueue.many(s, odd.map(p => NewJob(p).withUniqueKey("k" + p))))
      stored <- sql(db)(c =>
        Jdbc.prepared(c, "SELECT payload FROM weir.jobs ORDER BY id")(s =>
          Jdbc.rows(s)(_.getString(1))
        )
      )
    yield
      assertEquals(copied, odd.size.toLong)
      assertEquals(keyed, odd.size.toLong)
      assertEquals(stored, odd ++ odd)
  }

  test("10 concurrent claimers never hold the same job, and together claim every one once") {
    val n = 3000
    for
      db <- fresh("claimers")
      _ <- PgSession.open[IO](db).use(s => Enqueue.many(s, jobs(n)))
      claimed <- (0 until 10).toList.parTraverse { k =>
        PgSession.open[IO](db).use { s =>
          def loop(acc: Vector[Job]): IO[Vector[Job]] =
            s.withConnection(c => Claimer.claim(c, NewJob.defaultQueue, 7, 1.minute, s"w$k"))
              .flatMap(got => if got.isEmpty then IO.pure(acc) else loop(acc ++ got))
          loop(Vector.empty)
        }
      }
      running <- long(db, "SELECT count(*) FROM weir.jobs WHERE state = 'running' AND attempt = 1")
    yield
      val all = claimed.flatten
      assertEquals(all.size, n)
      assertEquals(all.map(_.id).distinct.size, n)
      assertEquals(running, n.toLong)
      assert(claimed.count(_.nonEmpty) > 1, "more than one claimer got jobs")
  }

  test("a claim after a position takes only the jobs after it in claiming order") {
    for
      db <- fresh("after")
      _ <- PgSession.open[IO](db).use(s => Enqueue.many(s, jobs(6)))
      first <- sql(db)(c => Claimer.claim(c, NewJob.defaultQueue, 2, 1.minute, w))
      after = Some(Claimer.Position.of(first.last))
      next <- sql(db)(c => Claimer.claim(c, NewJob.defaultQueue, 2, 1.minute, w, after))
      // A job that sorts before the position (a higher priority) is not seen after it, and is
      // from the beginning.
      _ <- PgSession
        .open[IO](db)
        .use(s =>
          Enqueue.one(s, NewJob("urgent").withPriority(-1).fold(e => fail(e.getMessage), identity))
        )
      skipped <- sql(db)(c => Claimer.claim(c, NewJob.defaultQueue, 1, 1.minute, w, after))
      fromStart <- sql(db)(c => Claimer.claim(c, NewJob.defaultQueue, 1, 1.minute, w))
    yield
      assertEquals(first.map(_.payload), Vector("0", "1"))
      assertEquals(next.map(_.payload), Vector("2", "3"))
      assertEquals(skipped.map(_.payload), Vector("4"))
      assertEquals(fromStart.map(_.payload), Vector("urgent"))
  }

  test("claims follow priority, then run_at, then id; scheduled jobs wait for their time") {
    val past = Instant.parse("2020-01-01T00:00:00Z")
    val later = Instant.now.plusSeconds(3600)
    val js = Vector(
      NewJob("low").withPriority(5).fold(e => fail(e.getMessage), identity),
      NewJob("high-late")
        .withPriority(1)
        .fold(e => fail(e.getMessage), identity)
        .withRunAt(past.plusSeconds(10)),
      NewJob("high-early").withPriority(1).fold(e => fail(e.getMessage), identity).withRunAt(past),
      NewJob("future").withRunAt(later),
      NewJob("plain")
    )
    for
      db <- fresh("order")
      _ <- PgSession.open[IO](db).use(s => Enqueue.many(s, js))
      got <- sql(db)(c => Claimer.claim(c, NewJob.defaultQueue, 10, 1.minute, w))
      left <- long(
        db,
        "SELECT count(*) FROM weir.jobs WHERE state = 'available' AND payload = 'future'"
      )
    yield
      assertEquals(got.map(_.payload), Vector("plain", "high-early", "high-late", "low"))
      assertEquals(left, 1L)
  }

  test("an expired lease is reaped and the job delivered again with its attempt counted") {
    for
      db <- fresh("lease")
      _ <- PgSession.open[IO](db).use(s => Enqueue.many(s, jobs(3)))
      first <- claimedAndExpired(db, 3, "dead")
      reaped <- sql(db)(c => Maintenance.reap(c, 100))
      again <- sql(db)(c => Claimer.claim(c, NewJob.defaultQueue, 3, 1.minute, "alive"))
      errors <- long(
        db,
        "SELECT sum(errors) FROM weir.jobs WHERE last_error LIKE 'lease expired (worker dead)%'"
      )
    yield
      assertEquals(first.map(_.attempt), Vector(1, 1, 1))
      assertEquals(reaped, Maintenance.Reaped(3, 0))
      assertEquals(again.map(j => (j.id, j.attempt)), first.map(j => (j.id, 2)))
      assertEquals(errors, 3L)
  }

  test("a lease expired on its last attempt discards the job") {
    for
      db <- fresh("lease_last")
      _ <- PgSession
        .open[IO](db)
        .use(s => Enqueue.one(s, NewJob("x").withMaxAttempts(Attempts(1))))
      _ <- claimedAndExpired(db, 1, "dead")
      reaped <- sql(db)(c => Maintenance.reap(c, 100))
      state <- sql(db)(c =>
        Jdbc.prepared(c, "SELECT state FROM weir.jobs")(s => Jdbc.rows(s)(_.getString(1)))
      )
    yield
      assertEquals(reaped, Maintenance.Reaped(0, 1))
      assertEquals(state, Vector("discarded"))
  }

  test("a late completion is rejected, counted, and never overwrites the newer attempt") {
    for
      db <- fresh("fence")
      _ <- PgSession.open[IO](db).use(s => Enqueue.many(s, jobs(2)))
      old <- claimedAndExpired(db, 2, "stalled")
      _ <- sql(db)(c => Maintenance.reap(c, 100))
      current <- sql(db)(c => Claimer.claim(c, NewJob.defaultQueue, 2, 1.minute, "current"))
      late <- sql(db)(c => Fenced.complete(c, old.map(_.claim), "stalled"))
      lateFail <- sql(db)(c =>
        Fenced.fail(c, old.map(j => Fenced.Failure(j.claim, "late", 0.seconds)), "stalled")
      )
      stillRunning <- long(
        db,
        "SELECT count(*) FROM weir.jobs WHERE state = 'running' AND attempt = 2 AND worker = 'current'"
      )
      renewedLost <- sql(db)(c => Fenced.renew(c, old.map(_.claim), 1.minute))
      done <- sql(db)(c => Fenced.complete(c, current.map(_.claim), "current"))
      // The same completion again (as after a lost answer): neither written twice nor rejected.
      repeated <- sql(db)(c => Fenced.complete(c, current.map(_.claim), "current"))
      rejections <- long(db, "SELECT count(*) FROM weir.job_rejections")
      completed <- long(
        db,
        "SELECT count(*) FROM weir.jobs WHERE state = 'completed' AND attempt = 2"
      )
    yield
      assertEquals(late, Fenced.Written(0, 0, 0, 2))
      assertEquals(lateFail, Fenced.Written(0, 0, 0, 2))
      assertEquals(stillRunning, 2L)
      assertEquals(renewedLost, old.map(_.id).toSet)
      assertEquals(done, Fenced.Written(2, 0, 0, 0))
      assertEquals(repeated, Fenced.Written(0, 0, 0, 0))
      assertEquals(rejections, 4L)
      assertEquals(completed, 2L)
  }

  test(
    "a failed attempt runs again after exactly the delay written; the last one discards; retry re-drives it"
  ) {
    for
      db <- fresh("retry")
      _ <- PgSession
        .open[IO](db)
        .use(s => Enqueue.one(s, NewJob("x").withMaxAttempts(Attempts(2))))
      a1 <- sql(db)(c => Claimer.claim(c, NewJob.defaultQueue, 1, 1.minute, w))
      f1 <- sql(db)(c =>
        Fenced.fail(c, a1.map(j => Fenced.Failure(j.claim, "boom", 1234.millis)), w)
      )
      delay <- long(
        db,
        "SELECT (extract(epoch FROM run_at - failed_at) * 1000)::bigint FROM weir.jobs"
      )
      notYet <- sql(db)(c => Claimer.claim(c, NewJob.defaultQueue, 1, 1.minute, w))
      _ <- sql(db)(c => Jdbc.prepared(c, "UPDATE weir.jobs SET run_at = now()")(_.executeUpdate()))
      a2 <- sql(db)(c => Claimer.claim(c, NewJob.defaultQueue, 1, 1.minute, w))
      f2 <- sql(db)(c =>
        Fenced.fail(c, a2.map(j => Fenced.Failure(j.claim, "boom again", 0.millis)), w)
      )
      listed <- PgSession.open[IO](db).use(s => QueueAdmin.discarded(s, None, 10))
      redriven <- PgSession.open[IO](db).use(s => QueueAdmin.retryDiscarded(s, None, Nil, 1))
      a3 <- sql(db)(c => Claimer.claim(c, NewJob.defaultQueue, 1, 1.minute, w))
    yield
      assertEquals(f1, Fenced.Written(0, 1, 0, 0))
      assertEquals(delay, 1234L)
      assertEquals(notYet, Vector.empty)
      assertEquals(a2.map(_.attempt), Vector(2))
      assertEquals(f2, Fenced.Written(0, 0, 1, 0))
      assertEquals(
        listed.map(d => (d.attempt, d.errors, d.lastError)),
        Vector((2, 2, Some("boom again")))
      )
      assertEquals(redriven, 1)
      assertEquals(a3.map(j => (j.attempt, j.maxAttempts)), Vector((3, 3)))
  }

  test(
    "unique keys: no second job with a key while one is unfinished; free again once it is done"
  ) {
    val keyed = NewJob("a").withUniqueKey("feed-1")
    for
      db <- fresh("unique")
      first <- PgSession.open[IO](db).use(s => Enqueue.one(s, keyed))
      second <- PgSession.open[IO](db).use(s => Enqueue.one(s, keyed))
      inBatch <- PgSession
        .open[IO](db)
        .use(s => Enqueue.many(s, Vector.fill(5)(NewJob("b").withUniqueKey("feed-2"))))
      claimed <- sql(db)(c => Claimer.claim(c, NewJob.defaultQueue, 10, 1.minute, w))
      whileRunning <- PgSession.open[IO](db).use(s => Enqueue.one(s, keyed))
      _ <- sql(db)(c => Fenced.complete(c, claimed.map(_.claim), w))
      afterDone <- PgSession.open[IO](db).use(s => Enqueue.one(s, keyed))
      otherQueue <- PgSession
        .open[IO](db)
        .use(s => Enqueue.one(s, keyed.withQueue("other").fold(e => fail(e.getMessage), identity)))
    yield
      assert(first.isNew)
      // The key taken: nothing inserted, the id of the job holding it.
      assertEquals(second, Enqueued.Existing(first.id))
      assertEquals(inBatch, 1L)
      assertEquals(claimed.size, 2)
      assertEquals(whileRunning, Enqueued.Existing(first.id))
      assert(afterDone.isNew && afterDone.id != first.id)
      assert(otherQueue.isNew)
  }

  test(
    "cancellation: a cancelled job is never claimed; a cancelled running job's completion is refused"
  ) {
    for
      db <- fresh("cancel")
      ids <- PgSession
        .open[IO](db)
        .use(s => jobs(3).traverse(j => Enqueue.one(s, j)))
        .map(_.map(_.id))
      running <- sql(db)(c => Claimer.claim(c, NewJob.defaultQueue, 1, 1.minute, w))
      cancelled <- PgSession.open[IO](db).use(s => QueueAdmin.cancel(s, Vector(ids(0), ids(1))))
      late <- sql(db)(c => Fenced.complete(c, running.map(_.claim), w))
      rest <- sql(db)(c => Claimer.claim(c, NewJob.defaultQueue, 10, 1.minute, w))
      again <- PgSession.open[IO](db).use(s => QueueAdmin.cancel(s, Vector(ids(0))))
    yield
      assertEquals(running.map(_.id), Vector(ids(0)))
      assertEquals(cancelled.sorted, Vector(ids(0), ids(1)))
      assertEquals(late, Fenced.Written(0, 0, 0, 1))
      assertEquals(rest.map(_.id), Vector(ids(2)))
      assertEquals(again, Vector.empty)
  }

  test("retention removes finished jobs older than the period in batches, or archives them") {
    for
      db <- fresh("retention")
      _ <- PgSession.open[IO](db).use(s => Enqueue.many(s, jobs(25)))
      claimed <- sql(db)(c => Claimer.claim(c, NewJob.defaultQueue, 20, 1.minute, w))
      _ <- sql(db)(c => Fenced.complete(c, claimed.map(_.claim), w))
      // 15 of the 20 completed jobs finished two hours ago; 5 just now; 5 never ran.
      _ <- sql(db)(c =>
        Jdbc.prepared(
          c,
          "UPDATE weir.jobs SET finished_at = now() - interval '2 hours' WHERE id IN (SELECT id FROM weir.jobs WHERE state = 'completed' ORDER BY id LIMIT 15)"
        )(_.executeUpdate())
      )
      deleted <- sql(db)(c => Maintenance.sweep(c, 1.hour, 4, archive = false))
      left <- long(db, "SELECT count(*) FROM weir.jobs")
      _ <- sql(db)(c =>
        Jdbc.prepared(
          c,
          "UPDATE weir.jobs SET finished_at = now() - interval '2 hours' WHERE state = 'completed'"
        )(_.executeUpdate())
      )
      archived <- sql(db)(c => Maintenance.sweep(c, 1.hour, 4, archive = true))
      inArchive <- long(db, "SELECT count(*) FROM weir.jobs_archive WHERE state = 'completed'")
      available <- long(db, "SELECT count(*) FROM weir.jobs WHERE state = 'available'")
    yield
      assertEquals(deleted, 15L)
      assertEquals(left, 10L)
      assertEquals(archived, 5L)
      assertEquals(inArchive, 5L)
      assertEquals(available, 5L)
  }

  test("transactional enqueue: the jobs appear at the caller's commit, and not after a rollback") {
    for
      db <- fresh("tx")
      counted <- PgSession.open[IO](db).use { s =>
        for
          _ <- s.transaction(on = true)
          _ <- Enqueue.many(s, jobs(3))
          _ <- s.update("CREATE TABLE caller_rows (x int)")
          inside <- long(db, "SELECT count(*) FROM weir.jobs")
          _ <- s.rollback
          afterRollback <- long(db, "SELECT count(*) FROM weir.jobs")
          _ <- Enqueue.one(s, NewJob("kept"))
          _ <- s.commit
          afterCommit <- long(db, "SELECT count(*) FROM weir.jobs")
        yield (inside, afterRollback, afterCommit)
      }
    yield assertEquals(counted, (0L, 0L, 1L))
  }
