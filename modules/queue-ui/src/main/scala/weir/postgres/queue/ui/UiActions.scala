package weir.postgres.queue.ui

import cats.effect.Sync
import cats.syntax.all.*
import java.sql.SQLException
import weir.postgres.PgSession
import weir.postgres.queue.{Jdbc, QueueAdmin, QueueSchemaName}

/** What the pages' buttons do, each one statement (or [[QueueAdmin]]'s) in autocommit on the
  * caller's session, answering the sentence the page shows next. A unique key taken by another job
  * (SQLSTATE 23505 on retry) is a sentence too; other driver errors are raised as `SQLException`s.
  */
private[ui] final class UiActions[F[_]: Sync](schema: QueueSchemaName):
  private val s = schema.name

  /** Job `id` available again now: a discarded or cancelled job with one more attempt, an available
    * one (waiting for its run_at, backing off) at once. Running and completed jobs are left alone.
    * The queue's workers are notified.
    */
  def retry(db: PgSession[F], id: Long): F[String] =
    db.withConnection { c =>
      try
        val queue = Jdbc.prepared(
          c,
          s"""UPDATE $s.jobs SET state = 'available', run_at = now(), finished_at = NULL,
             |       max_attempts = greatest(max_attempts, attempt + 1)
             | WHERE id = ? AND state IN ('available', 'discarded', 'cancelled')
             |RETURNING queue""".stripMargin
        ) { st =>
          st.setLong(1, id)
          Jdbc.rows(st)(_.getString(1)).headOption
        }
        queue.foreach(notify(c, _))
        queue.fold(s"job $id was not retried: only discarded, cancelled and available jobs can be")(
          _ => s"job $id: available again"
        )
      catch
        case e: SQLException if e.getSQLState == "23505" =>
          s"job $id was not retried: another job of its queue holds its unique key"
    }

  /** Job `id` cancelled ([[QueueAdmin.cancel]]): a running job's handler is interrupted at its
    * worker's next heartbeat.
    */
  def cancel(db: PgSession[F], id: Long): F[String] =
    QueueAdmin
      .cancel(db, Seq(id), schema)
      .map(done =>
        if done.nonEmpty then s"job $id: cancelled"
        else s"job $id was not cancelled: it had finished already, or there is no such job"
      )

  /** Job `id` deleted, unless it is running (cancel it first: its worker still holds it). */
  def delete(db: PgSession[F], id: Long): F[String] =
    db.withConnection { c =>
      Jdbc.prepared(c, s"DELETE FROM $s.jobs WHERE id = ? AND state <> 'running' RETURNING id") {
        st =>
          st.setLong(1, id)
          Jdbc.rows(st)(_.getLong(1)).size
      }
    }.map(n =>
      if n == 1 then s"job $id: deleted"
      else s"job $id was not deleted: it is running (cancel it first), or there is no such job"
    )

  /** Every discarded job of `queue` available again with one more attempt
    * ([[QueueAdmin.retryDiscarded]]); its workers notified.
    */
  def retryDiscarded(db: PgSession[F], queue: String): F[String] =
    QueueAdmin
      .retryDiscarded(db, Some(queue), Nil, 1, schema)
      .flatTap { _ =>
        db.withConnection(notify(_, queue))
      }
      .map(n => s"queue $queue: $n discarded job(s) available again")

  /** `queue` paused or resumed ([[QueueAdmin.pause]], [[QueueAdmin.resume]]). */
  def pause(db: PgSession[F], queue: String, paused: Boolean): F[String] =
    val toggled =
      if paused then QueueAdmin.pause(db, queue, schema) else QueueAdmin.resume(db, queue, schema)
    toggled.map {
      case Left(_)                => s"queue $queue is unknown: no job of it, never paused"
      case Right(true) if paused  => s"queue $queue was paused already"
      case Right(false) if paused => s"queue $queue: paused"
      case Right(true)            => s"queue $queue: resumed"
      case Right(false)           => s"queue $queue was not paused"
    }

  private def notify(c: java.sql.Connection, queue: String): Unit =
    val _ = Jdbc.prepared(c, "SELECT pg_notify(?, ?)") { st =>
      st.setString(1, schema.channel)
      st.setString(2, queue)
      Jdbc.rows(st)(_ => ())
    }
