package weir.postgres.queue.ui

import cats.effect.IO
import cats.syntax.all.*
import org.http4s.server.Router
import org.http4s.implicits.*
import weir.postgres.{PgSession, PgTarget}
import weir.postgres.queue.{Enqueue, NewJob}
import weir.postgres.queue.QueueDbs.sql

/** What the ui's suites share: the routes on a real database under http4s' test client, and plain
  * SQL to set a database up and look at it.
  */
object UiFixtures:

  def ui[A](
      db: PgTarget,
      settings: QueueUiSettings = QueueUiSettings.default,
      prefix: String = ""
  )(
      body: UiClient => IO[A]
  ): IO[A] =
    QueueUi.pooled[IO](db, 2).use { sessions =>
      QueueUi.routes[IO](sessions, settings).flatMap { routes =>
        val app = if prefix.isEmpty then routes.orNotFound else Router(prefix -> routes).orNotFound
        UiClient(app).flatMap(body)
      }
    }

  def enqueue(db: PgTarget, jobs: Vector[NewJob]): IO[Vector[Long]] =
    PgSession.open[IO](db).use(s => jobs.traverse(Enqueue.one(s, _))).map(_.map(_.id))

  def exec(db: PgTarget, statement: String): IO[Unit] =
    sql(db)(c =>
      val s = c.createStatement();
      try s.execute(statement)
      finally s.close()
    ).void

  def discard(db: PgTarget, id: Long, error: String = "boom"): IO[Unit] =
    exec(
      db,
      s"""UPDATE weir.jobs SET state = 'discarded', attempt = 1, max_attempts = 1, errors = 1,
         |  last_error = '$error', failed_at = now(), finished_at = now() WHERE id = $id""".stripMargin
    )

  def state(db: PgTarget, id: Long): IO[String] =
    sql(db)(c =>
      val s =
        c.prepareStatement("SELECT coalesce((SELECT state FROM weir.jobs WHERE id = ?), 'gone')")
      try
        s.setLong(1, id); val r = s.executeQuery(); r.next(); r.getString(1)
      finally s.close()
    )

  def job(payload: String, queue: String = "default", kind: String = "default") =
    NewJob(payload).withQueue(queue).flatMap(_.withKind(kind)).fold(throw _, identity)
