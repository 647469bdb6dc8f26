package weir.postgres.queue

import cats.effect.{IO, Resource}
import cats.syntax.all.*
import org.postgresql.PGConnection
import weir.postgres.{PgSession, PgTarget}

/** A connection LISTENing on [[Enqueue.channel]], for counting the notifications that commits
  * deliver. [[upTo]] sends a marker notification of its own and collects everything delivered
  * before it: notifications arrive in commit order, so once the marker is in, every transaction
  * committed before it has been delivered, and the count is exact without waiting out a window.
  */
final class Notifications private (
    session: PgSession[IO],
    marker: PgSession[IO],
    channel: String
):

  /** The payloads (queue names) delivered since the last call, in order, up to a marker sent now.
    */
  def upTo: IO[Vector[String]] =
    marker.update(s"NOTIFY $channel, 'marker'") >> session.withConnection { c =>
      val pg = c.unwrap(classOf[PGConnection])
      val got = Vector.newBuilder[String]
      var seen = false
      val deadline = System.nanoTime + 30_000_000_000L
      while !seen && System.nanoTime < deadline do
        Option(pg.getNotifications(500)).foreach(_.foreach { n =>
          if n.getParameter == "marker" then seen = true else got += n.getParameter
        })
      if !seen then throw new IllegalStateException("the marker notification never came")
      got.result()
    }

object Notifications:

  /** A listener on `target` (and a second connection that sends the markers). */
  def resource(
      target: PgTarget,
      channel: String = Enqueue.channel
  ): Resource[IO, Notifications] =
    (
      PgSession.open[IO](target, "weir test listen"),
      PgSession.open[IO](target, "weir test mark")
    ).tupled
      .evalMap { (listen, mark) =>
        listen.update(s"LISTEN $channel").as(new Notifications(listen, mark, channel))
      }
