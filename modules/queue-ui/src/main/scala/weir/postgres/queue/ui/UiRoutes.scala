package weir.postgres.queue.ui

import cats.data.{Kleisli, OptionT}
import cats.effect.{Async, Resource}
import cats.syntax.all.*
import org.http4s.*
import org.http4s.dsl.Http4sDsl
import org.http4s.headers.{`Content-Type`, Authorization, Location}
import org.typelevel.ci.CIString
import weir.postgres.PgSession

/** The ui's routes (see [[QueueUi.routes]]): authentication, then a page, a page's live part or an
  * action. Each request borrows one session from `db` for its few statements.
  */
private[ui] final class UiRoutes[F[_]](
    db: Resource[F, PgSession[F]],
    settings: QueueUiSettings,
    sessions: UiSessions[F],
    overview: UiSnapshot[F, UiRoutes.Overview]
)(using F: Async[F])
    extends Http4sDsl[F]:

  private val queries = UiQueries[F](settings.schema)
  private val actions = UiActions[F](settings.schema)
  private val cookieName = "weir_queue_ui"

  def routes: HttpRoutes[F] = Kleisli { (req: Request[F]) =>
    val base = req.scriptName.renderString.stripSuffix("/")
    req match
      case GET -> Root / "ui.css" => OptionT.liftF(asset(UiHtml.css, "text/css"))
      case GET -> Root / "ui.js"  => OptionT.liftF(asset(UiHtml.js, "text/javascript"))
      case _ if isOurs(req)       => OptionT.liftF(authenticated(req, base))
      case _                      => OptionT.none
  }

  private def isOurs(req: Request[F]): Boolean = req match
    case GET -> Root | GET -> Root / "" | GET -> Root / "jobs" | GET -> Root / "jobs" / _ |
        GET -> Root / "workers" | GET -> Root / "schedules" =>
      true
    case POST -> Root / "jobs" / _ / _ | POST -> Root / "queue" / _ => true
    case _                                                          => false

  // Who it is: a session of ours (the cookie), or the token (a new session), or nobody (401).
  private def authenticated(req: Request[F], base: String): F[Response[F]] =
    val cookie = req.cookies.find(_.name == cookieName).map(_.content)
    cookie.flatTraverse(id => sessions.csrf(id).map(_.map(id -> _))).flatMap {
      case Some((_, csrf)) => serve(req, base, csrf)
      case None =>
        val fromQuery = req.params.get("token")
        val fromHeader = req.headers.get[Authorization].collect {
          case Authorization(Credentials.Token(AuthScheme.Bearer, t)) => t
        }
        val presented = fromQuery.orElse(fromHeader)
        settings.token match
          case Some(expected) if !presented.exists(UiSessions.same(_, expected)) =>
            F.pure(unauthorized(presented.isDefined))
          case _ =>
            sessions.create.flatMap { (id, csrf) =>
              val set = ResponseCookie(
                cookieName,
                id,
                httpOnly = true,
                sameSite = Some(SameSite.Strict),
                path = Some(if base.isEmpty then "/" else base)
              )
              // The token leaves the address bar: the same page again, without it.
              if req.method == Method.GET && fromQuery.isDefined then
                val clean = req.uri.removeQueryParam("token")
                F.pure(
                  Response[F](Status.SeeOther)
                    .putHeaders(Location(Uri(path = req.uri.path, query = clean.query)))
                    .addCookie(set)
                )
              else serve(req, base, csrf).map(_.addCookie(set))
            }
    }

  private def unauthorized(wrong: Boolean): Response[F] =
    val why = if wrong then "The token given is not this ui's." else "This ui needs its token."
    html(
      Status.Unauthorized,
      s"""<!DOCTYPE html><html lang="en"><head><meta charset="utf-8" /><title>weir queue ui: token needed</title></head>
         |<body><h1>weir queue ui: token needed</h1><p>$why Open the address that <code>weir queue ui</code> printed
         |(it ends in <code>?token=…</code>), or send <code>Authorization: Bearer TOKEN</code>.</p></body></html>
         |""".stripMargin
    ).putHeaders(Header.Raw(CIString("WWW-Authenticate"), "Bearer realm=\"weir queue ui\""))

  private def serve(req: Request[F], base: String, csrf: String): F[Response[F]] =
    if req.method == Method.POST then
      UiPosts(actions, settings.readOnly).handle(req, base, csrf, db, overview.invalidate)
    else
      val back = backOf(req)
      val live = req.params.get("live").contains("1")
      val notice = req.params.get("done").filter(_ => !live)
      val pages = UiPages(base, csrf, settings.readOnly, back, java.time.Instant.now())
      val liveUrl = Uri.unsafeFromString(back).withQueryParam("live", "1").renderString
      def respond(title: String, fixed: String, body: F[Option[String]]): F[Response[F]] =
        body.map {
          case None =>
            html(
              Status.NotFound,
              UiHtml.page(
                base,
                "Not found",
                Some(s"$title: no such thing"),
                "",
                liveUrl,
                settings.refreshSeconds,
                settings.readOnly,
                ""
              )
            )
          case Some(b) if live => html(Status.Ok, b)
          case Some(b) =>
            html(
              Status.Ok,
              UiHtml.page(
                base,
                title,
                notice,
                b,
                liveUrl,
                settings.refreshSeconds,
                settings.readOnly,
                fixed
              )
            )
        }
      val minutes = settings.chartMinutes
      def text(name: String) = req.params.get(name).map(_.trim).filter(_.nonEmpty)
      (req match
        case GET -> Root / "jobs" =>
          val (queue, state, kind) =
            (text("queue"), text("state").filter(UiData.states.contains), text("kind"))
          text("before").traverse(b => b.toLongOption.toRight(b)) match
            case Left(bad) =>
              F.pure(
                html(
                  Status.BadRequest,
                  UiHtml.page(
                    base,
                    "Jobs",
                    Some(s"before=$bad is not a job id"),
                    "",
                    liveUrl,
                    settings.refreshSeconds,
                    settings.readOnly,
                    ""
                  )
                )
              )
            case Right(before) =>
              val title =
                List(queue.map(q => s"queue $q"), state, kind.map(k => s"kind $k")).flatten
              respond(
                if title.isEmpty then "Jobs" else s"Jobs: ${title.mkString(", ")}",
                pages.filters(queue, state, kind),
                db.use(s => queries.jobs(s, queue, state, kind, before, settings.pageSize + 1))
                  .map { rows =>
                    Some(
                      pages.jobs(
                        rows.take(settings.pageSize),
                        rows.size > settings.pageSize,
                        queue,
                        state,
                        kind,
                        before
                      )
                    )
                  }
              )
        case GET -> Root / "jobs" / LongVar(id) =>
          respond(s"Job $id", "", db.use(queries.job(_, id)).map(_.map(pages.job)))
        case GET -> Root / "workers" =>
          respond("Workers", "", db.use(queries.workers).map(w => Some(pages.workers(w))))
        case GET -> Root / "schedules" =>
          respond("Schedules", "", db.use(queries.schedules).map(s => Some(pages.schedules(s))))
        case GET -> Root / "jobs" / other =>
          respond(s"Job $other", "", F.pure(None))
        case _ =>
          respond(
            "Overview",
            "",
            overview.get.map { case ((q, c), at) => Some(pages.overview(q, c, minutes, at)) }
          )
      ).handleError(e =>
        html(
          Status.InternalServerError,
          UiHtml.page(
            base,
            "Error",
            Some(s"the database answered: ${Option(e.getMessage).getOrElse(e.toString)}"),
            "",
            liveUrl,
            settings.refreshSeconds,
            settings.readOnly,
            ""
          )
        )
      )

  // The page's own address (path and query, without live, done and token): where actions return.
  private def backOf(req: Request[F]): String =
    val u = req.uri.removeQueryParam("live").removeQueryParam("done").removeQueryParam("token")
    Uri(path = req.uri.path, query = u.query).renderString

  private def asset(text: String, mediaType: String): F[Response[F]] =
    F.pure(
      Response[F](Status.Ok)
        .withEntity(text)
        .putHeaders(
          Header.Raw(CIString("Content-Type"), s"$mediaType; charset=utf-8"),
          Header.Raw(CIString("Cache-Control"), "max-age=300"),
          Header.Raw(CIString("X-Content-Type-Options"), "nosniff")
        )
    )

  private def html(status: Status, body: String): Response[F] = UiRoutes.html[F](status, body)

private[ui] object UiRoutes:

  /** The overview's counts and chart, as [[UiSnapshot]] shares them. */
  type Overview = (Vector[UiData.QueueRow], UiData.Chart)

  /** What every page answers with: no caching, no framing, no script or style from elsewhere. */
  def html[F[_]](status: Status, body: String): Response[F] =
    Response[F](status)
      .withEntity(body)
      .withContentType(`Content-Type`(MediaType.text.html, Charset.`UTF-8`))
      .putHeaders(
        Header.Raw(CIString("Cache-Control"), "no-store"),
        Header.Raw(
          CIString("Content-Security-Policy"),
          "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
        ),
        Header.Raw(CIString("X-Content-Type-Options"), "nosniff"),
        Header.Raw(CIString("X-Frame-Options"), "DENY"),
        Header.Raw(CIString("Referrer-Policy"), "no-referrer")
      )
