package weir.postgres.queue.ui

import cats.effect.{Async, Resource}
import cats.effect.std.Queue
import cats.syntax.all.*
import org.http4s.HttpRoutes
import weir.postgres.{PgSession, PgTarget}

/** The queue in a browser: pages that show it live (an overview per queue with a chart of jobs
  * completed and failed per second, job lists with filters and keyset paging, a job's detail, the
  * workers, the schedules, the discarded jobs) and forms that act on it (retry, cancel and delete a
  * job; retry every discarded job of a queue; pause and resume a queue), as http4s routes to mount
  * in any http4s server under any prefix (`weir queue ui` serves them with Ember).
  *
  * Everything is served by the routes themselves (a style sheet `ui.css`, a script `ui.js` that
  * only refreshes a page's live part): nothing is loaded from elsewhere, and every page and action
  * works without JavaScript. Text from the database (payloads, errors, queue names, kinds) is
  * always escaped.
  *
  * '''Security.''' Each browser gets a session (an `HttpOnly`, `SameSite=Strict` cookie) with an
  * anti-forgery token that every form carries; a POST without it changes nothing and gets 403. With
  * [[QueueUiSettings.withToken]], a request without the session's cookie must present the token
  * (`?token=` or `Authorization: Bearer`; compared in constant time) or gets 401 and changes
  * nothing. With [[QueueUiSettings.withReadOnly]], pages show no action and every POST gets 403.
  *
  * '''Cost and errors.''' Each request borrows one session from `db` and runs a few statements,
  * each through an index of the jobs table; a database error is a 500 page that says it. The
  * overview's counts are shared by every request (see [[QueueUiSettings.withSharedOverview]]): a
  * dashboard left open, or many, cost the database at most one overview a second by default.
  */
object QueueUi:

  /** The routes, served from sessions borrowed from `db` (one at a time per request; see
    * [[pooled]]). Unknown paths are left to the routes mounted beside them.
    */
  def routes[F[_]: Async](
      db: Resource[F, PgSession[F]],
      settings: QueueUiSettings
  ): F[HttpRoutes[F]] =
    val queries = UiQueries[F](settings.schema)
    val minutes = settings.chartMinutes
    val overview =
      db.use(s => (queries.queues(s, minutes), queries.chart(s, None, minutes)).tupled)
    (
      UiSessions.empty[F],
      UiSnapshot[F, UiRoutes.Overview](overview, settings.overviewFresh, settings.overviewStale)
    ).mapN((s, o) => UiRoutes[F](db, settings, s, o).routes)

  /** The routes on connections borrowed from the application's pool (a HikariCP `DataSource` over
    * pgjdbc), one per request, given back after.
    */
  def routes[F[_]: Async](
      pool: javax.sql.DataSource,
      settings: QueueUiSettings
  ): F[HttpRoutes[F]] =
    routes(PgSession.borrowed[F](pool, "weir queue ui"), settings)

  /** Up to `size` sessions to `target`, opened when first needed and kept while the resource is
    * held: the outer resource is the pool, the inner one borrows a session (waiting while all are
    * busy). A session whose use failed is closed and opened again at its next borrowing, so a lost
    * connection does not stay lost.
    */
  def pooled[F[_]](target: PgTarget, size: Int)(using
      F: Async[F]
  ): Resource[F, Resource[F, PgSession[F]]] =
    type Slot = Option[(PgSession[F], F[Unit])]
    val open: Resource[F, Queue[F, Slot]] = Resource.make(
      Queue
        .bounded[F, Slot](math.max(1, size))
        .flatTap(q => q.offer(None).replicateA_(math.max(1, size)))
    )(q => q.tryTakeN(None).flatMap(_.traverse_(_.traverse_(_._2))))
    open.map { slots =>
      Resource
        .makeCase(
          slots.take.flatMap {
            case Some(open) => F.pure(open)
            case None =>
              PgSession.open[F](target, "weir queue ui").allocated.onError(_ => slots.offer(None))
          }
        ) {
          case (slot, Resource.ExitCase.Succeeded) => slots.offer(Some(slot))
          case (slot, _)                           => slot._2.attempt >> slots.offer(None)
        }
        .map(_._1)
    }
