package weir.postgres.queue.ui

import cats.effect.{Async, Resource}
import cats.syntax.all.*
import org.http4s.*
import org.http4s.dsl.Http4sDsl
import org.http4s.headers.Location
import weir.postgres.PgSession

/** The ui's actions (POSTs from its forms): refused with 403 in read-only mode or without the
  * session's anti-forgery token (nothing changed then), else done ([[UiActions]]) and answered with
  * 303 to the page the form was on, its outcome in `done=` for the page to show.
  */
private[ui] final class UiPosts[F[_]](actions: UiActions[F], readOnly: Boolean)(using F: Async[F])
    extends Http4sDsl[F]:

  def handle(
      req: Request[F],
      base: String,
      csrf: String,
      db: Resource[F, PgSession[F]],
      acted: F[Unit]
  ): F[Response[F]] =
    if readOnly then F.pure(refused("this ui is read-only (--read-only): it changes nothing"))
    else
      req.as[UrlForm].flatMap { form =>
        val sent = form.getFirst("csrf")
        if !sent.exists(UiSessions.same(_, csrf)) then
          F.pure(
            refused(
              "the form's anti-forgery token is missing or not this session's: reload the page and try again"
            )
          )
        else
          val queue = form.getFirst("queue").map(_.trim).filter(_.nonEmpty)
          val done: Option[F[String]] = (req, queue) match
            case (POST -> Root / "jobs" / LongVar(id) / "retry", _) =>
              Some(db.use(actions.retry(_, id)))
            case (POST -> Root / "jobs" / LongVar(id) / "cancel", _) =>
              Some(db.use(actions.cancel(_, id)))
            case (POST -> Root / "jobs" / LongVar(id) / "delete", _) =>
              Some(db.use(actions.delete(_, id)))
            case (POST -> Root / "queue" / "pause", Some(q)) =>
              Some(db.use(actions.pause(_, q, paused = true)))
            case (POST -> Root / "queue" / "resume", Some(q)) =>
              Some(db.use(actions.pause(_, q, paused = false)))
            case (POST -> Root / "queue" / "retry-discarded", Some(q)) =>
              Some(db.use(actions.retryDiscarded(_, q)))
            case _ => None
          done match
            case None =>
              F.pure(
                UiRoutes.html[F](
                  Status.NotFound,
                  "<!DOCTYPE html><title>weir queue ui</title><p>No such action.</p>"
                )
              )
            case Some(run) =>
              run.flatTap(_ => acted).map { message =>
                val back = form
                  .getFirst("back")
                  .flatMap(b => Uri.fromString(b).toOption)
                  .filter(ours(_, base))
                val to = back
                  .getOrElse(Uri.unsafeFromString(s"$base/"))
                  .removeQueryParam("done")
                  .withQueryParam("done", message)
                Response[F](Status.SeeOther).putHeaders(Location(to))
              }
      }

  // Only back to one of our own pages: a relative address under the mount prefix.
  private def ours(uri: Uri, base: String): Boolean =
    val path = uri.path.renderString
    uri.scheme.isEmpty && uri.authority.isEmpty && path.startsWith(s"$base/") && !path.startsWith(
      "//"
    )

  private def refused(why: String): Response[F] =
    UiRoutes.html[F](
      Status.Forbidden,
      s"""<!DOCTYPE html><html lang="en"><head><meta charset="utf-8" /><title>weir queue ui: refused</title></head>
         |<body><h1>Refused</h1><p>${UiHtml.esc(why)}.</p></body></html>
         |""".stripMargin
    )
