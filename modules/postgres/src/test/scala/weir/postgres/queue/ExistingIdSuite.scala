package weir.postgres.queue

import cats.effect.IO
import cats.syntax.all.*
import munit.CatsEffectSuite
import scala.concurrent.duration.*
import weir.postgres.{PgSession, PgTarget}

/** A unique enqueue whose key is taken answers with the id of the job holding it (migration 0008):
  * [[Enqueued.Existing]] from Scala, the id from `weir.enqueue`, `(id, false)` from
  * `weir.enqueue_outcome`; two concurrent enqueues of one key leave one job and both get its id.
  * Counted in the database; the wait of the second enqueue is seen in `pg_stat_activity`.
  */
class ExistingIdSuite extends CatsEffectSuite:
  import QueueDbs.*

  override def munitIOTimeout: Duration = 2.minutes

  private def keyed(payload: String): NewJob = NewJob(payload).withUniqueKey("k")

  private def one(db: PgTarget, job: NewJob): IO[Enqueued] =
    PgSession.open[IO](db).use(Enqueue.one(_, job))

  // Polls until a session named `app` waits on a lock (the unique index's), a few seconds at most.
  private def waitsOnLock(db: PgTarget, app: String): IO[Unit] =
    val seen = long(
      db,
      s"SELECT count(*) FROM pg_stat_activity WHERE application_name = '$app' AND wait_event_type = 'Lock'"
    )
    def loop(n: Int): IO[Unit] = seen.flatMap { c =>
      if c == 1L then IO.unit
      else if n == 0 then IO.raiseError(new AssertionError(s"$app never waited on a lock"))
      else IO.sleep(20.millis) >> loop(n - 1)
    }
    loop(500)

  // The first enqueue in an open transaction of `first`'s, the second from another session: it
  // waits on the first's uncommitted row; `end` commits or rolls back the first's transaction.
  private def raced(db: PgTarget, end: PgSession[IO] => IO[Unit]): IO[(Enqueued, Enqueued)] =
    PgSession.open[IO](db, "weir first").use { s =>
      for
        _ <- s.transaction(on = true)
        first <- Enqueue.one(s, keyed("first"))
        second <- PgSession.open[IO](db, "weir second").use(Enqueue.one(_, keyed("second"))).start
        _ <- waitsOnLock(db, "weir second")
        _ <- end(s)
        got <- second.joinWithNever
      yield (first, got)
    }

  test("Scala: New with its id, then Existing with the same id; a job without a key always New") {
    for
      db <- fresh("existing")
      first <- one(db, keyed("a"))
      again <- one(db, keyed("b"))
      plain <- (one(db, NewJob("c")), one(db, NewJob("c"))).tupled
      rows <- long(db, "SELECT count(*) FROM weir.jobs")
      held <- long(db, s"SELECT count(*) FROM weir.jobs WHERE id = ${first.id} AND payload = 'a'")
    yield
      assert(first.isNew)
      assertEquals(again, Enqueued.Existing(first.id))
      assert(plain._1.isNew && plain._2.isNew && plain._1.id != plain._2.id)
      assertEquals((rows, held), (3L, 1L))
  }

  test("two concurrent enqueues of one key: the second waits; on commit it gets the first's id") {
    for
      db <- fresh("existingrace")
      got <- raced(db, _.commit)
      rows <- long(db, "SELECT count(*) FROM weir.jobs")
    yield
      assert(got._1.isNew)
      assertEquals(got._2, Enqueued.Existing(got._1.id))
      assertEquals(rows, 1L)
  }

  test("two concurrent enqueues of one key: on the first's rollback the second inserts its own") {
    for
      db <- fresh("existingback")
      got <- raced(db, _.rollback)
      rows <- long(db, "SELECT count(*) FROM weir.jobs WHERE payload = 'second'")
    yield
      assert(got._1.isNew && got._2.isNew && got._1.id != got._2.id)
      assertEquals(rows, 1L)
  }

  test("16 sessions racing on one key, half from Scala, half in SQL: one job, all get its id") {
    for
      db <- fresh("existingmany")
      ids <- (1 to 16).toVector.parTraverse { i =>
        if i % 2 == 0 then one(db, keyed(i.toString)).map(e => (e.id, e.isNew))
        else
          sql(db)(c =>
            Jdbc.prepared(
              c,
              s"SELECT job_id, inserted FROM weir.enqueue_outcome('default', '$i', unique_key => 'k')"
            )(s => Jdbc.rows(s)(r => (r.getLong(1), r.getBoolean(2))).head)
          )
      }
      rows <- long(db, "SELECT count(*) FROM weir.jobs")
    yield
      assertEquals(ids.map(_._1).distinct.size, 1)
      assertEquals(ids.count(_._2), 1)
      assertEquals(rows, 1L)
  }

  test("SQL: weir.enqueue returns the holder's id; weir.enqueue_outcome says new or existing") {
    def pair(db: PgTarget, call: String): IO[(Long, Boolean)] =
      sql(db)(c =>
        Jdbc.prepared(c, s"SELECT job_id, inserted FROM $call")(s =>
          Jdbc.rows(s)(r => (r.getLong(1), r.getBoolean(2))).head
        )
      )
    for
      db <- fresh("existingsql")
      created <- pair(db, "weir.enqueue_outcome('q', 'a', kind => 'x', unique_key => 'k')")
      taken <- pair(db, "weir.enqueue_outcome('q', '{\"b\":1}'::jsonb, unique_key => 'k')")
      viaEnqueue <- long(db, "SELECT weir.enqueue('q', 'c', unique_key => 'k')")
      viaJson <- long(db, "SELECT weir.enqueue('q', '{\"d\":1}'::jsonb, unique_key => 'k')")
      noKey <- pair(db, "weir.enqueue_outcome('q', 'e')")
      _ <- sql(db)(c =>
        Jdbc.prepared(c, "UPDATE weir.jobs SET state = 'completed'")(_.executeUpdate())
      )
      // Completed and without a period, the key is free again: a new job.
      freed <- pair(db, "weir.enqueue_outcome('q', 'f', unique_key => 'k')")
      rows <- long(db, "SELECT count(*) FROM weir.jobs")
    yield
      assertEquals(created._2, true)
      assertEquals(taken, (created._1, false))
      assertEquals((viaEnqueue, viaJson), (created._1, created._1))
      assertEquals(noKey._2, true)
      assert(freed._2 && freed._1 != created._1)
      assertEquals(rows, 3L)
  }
