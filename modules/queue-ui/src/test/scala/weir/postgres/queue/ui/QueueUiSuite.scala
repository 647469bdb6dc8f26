package weir.postgres.queue.ui

import cats.effect.IO
import cats.syntax.all.*
import munit.CatsEffectSuite
import org.http4s.*
import org.http4s.headers.{Authorization, Location}
import org.http4s.implicits.*
import scala.concurrent.duration.*
import weir.postgres.PgTarget
import weir.postgres.queue.{NewJob, QueueDbs}

/** Every page and action of the ui under http4s' test client, on a real PostgreSQL: what a page
  * shows, what an action changed in the database (counted there), and what is refused (no token, no
  * anti-forgery token, read-only) having changed nothing.
  */
class QueueUiSuite extends CatsEffectSuite:
  import QueueDbs.*
  import UiClient.withFilter
  import UiFixtures.*

  override def munitIOTimeout: Duration = 2.minutes

  private val token = "0123456789abcdef-token"

  test("every page answers 200 and shows what the database holds") {
    for
      db <- fresh("uipages")
      ids <- enqueue(
        db,
        Vector(job("a", "mail"), job("b", "mail", "welcome"), job("c", "sms"), job("d", "sms"))
      )
      _ <- discard(db, ids(2), "smtp said no")
      _ <- exec(
        db,
        s"UPDATE weir.jobs SET state = 'running', attempt = 1, worker = 'host-1/w', lease_until = now() + interval '30 seconds', attempted_at = now() WHERE id = ${ids(3)}"
      )
      _ <- exec(
        db,
        "INSERT INTO weir.schedules (name, queue, payload, cron) VALUES ('nightly', 'mail', 'report', '0 3 * * *')"
      )
      pages <- ui(db) { c =>
        List(
          "/",
          "/jobs",
          "/jobs?queue=mail&kind=welcome",
          s"/jobs/${ids(2)}",
          "/workers",
          "/schedules",
          "/jobs?state=discarded",
          "/?live=1"
        )
          .traverse(c.get)
      }
    yield
      pages.foreach((r, b) => assertEquals(r.status, Status.Ok, b))
      val List(overview, jobs, welcome, detail, workers, schedules, discarded, live) =
        (pages.map(_._2): @unchecked)
      assert(overview.contains("<svg"), overview)
      assert(overview.contains(">mail</a>") && overview.contains(">sms</a>"), overview)
      assert(jobs.contains(s">${ids(0)}</a>") && jobs.contains(s">${ids(3)}</a>"), jobs)
      assert(welcome.contains(s">${ids(1)}</a>") && !welcome.contains(s">${ids(0)}</a>"), welcome)
      assert(detail.contains("smtp said no") && detail.contains("discarded"), detail)
      assert(workers.contains("host-1/w") && workers.contains(s">${ids(3)}</a>"), workers)
      assert(schedules.contains("nightly") && schedules.contains("0 3 * * *"), schedules)
      assert(
        discarded.contains(s">${ids(2)}</a>") && !discarded.contains(s">${ids(0)}</a>"),
        discarded
      )
      assert(!live.contains("<html") && live.contains("<svg"), live)
  }

  test("the overview counts available jobs exactly up to 10 000 and shows 10000+ past it") {
    // Two queues: one at the cap exactly, one a job past it (bench/queue/ui.sh: counting every
    // available job cost 406 ms at p50 with 1 M of them).
    def fill(db: PgTarget, queue: String, n: Int) = exec(
      db,
      s"""INSERT INTO weir.jobs (queue, kind, payload, run_at)
         |SELECT '$queue', 'default', 'p' || i, now() - interval '1 minute'
         |  FROM generate_series(1, $n) AS i""".stripMargin
    )
    for
      db <- fresh("uicap")
      _ <- fill(db, "atcap", UiData.CountCap)
      _ <- fill(db, "pastcap", UiData.CountCap + 1)
      page <- ui(db)(_.get("/"))
    yield
      val (response, body) = page
      assertEquals(response.status, Status.Ok, body)
      def row(queue: String) =
        body
          .split("<tr")
          .find(_.contains(s">$queue</a>"))
          .getOrElse(fail(s"no row of $queue: $body"))
      assert(row("atcap").contains(">10000</a>") && !row("atcap").contains("10000+"), body)
      assert(row("pastcap").contains(">10000+</a>"), body)
  }

  test("a payload, an error and a queue name of <script> are shown as text, never as markup") {
    val evil = "<script>alert('x')</script>"
    for
      db <- fresh("uiescape")
      ids <- enqueue(db, Vector(job(evil, "q<b>1</b>", "k\"><img src=x>")))
      _ <- discard(db, ids(0), "&lt;not an entity <script>")
      pages <- ui(db)(c => List("/", "/jobs", s"/jobs/${ids(0)}").traverse(c.get))
    yield pages.foreach { (_, body) =>
      assert(!body.contains("<script>alert"), body)
      assert(!body.contains("<b>1</b>"), body)
      assert(!body.contains("<img src=x>"), body)
      if body.contains("payload") && body.contains("job-payload") then
        assert(body.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;"), body)
        assert(body.contains("&amp;lt;not an entity &lt;script&gt;"), body)
    }
  }

  test("keyset paging: every job exactly once across the pages, newest first") {
    for
      db <- fresh("uipaging")
      ids <- enqueue(
        db,
        Vector.tabulate(23)(i => job(i.toString, if i % 2 == 0 then "even" else "odd"))
      )
      settings = QueueUiSettings.default.withPageSize(5).fold(throw _, identity)
      seen <- ui(db, settings) { c =>
        def walk(uri: String, acc: Vector[Long]): IO[Vector[Long]] =
          c.get(uri).flatMap { (_, body) =>
            val onPage = """<td><a href="/jobs/(\d+)">""".r
              .findAllMatchIn(body)
              .map(_.group(1).toLong)
              .toVector
            """href="([^"]*before=\d+)" rel="next"""".r.findFirstMatchIn(body) match
              case Some(m) => walk(m.group(1).replace("&amp;", "&"), acc ++ onPage)
              case None    => IO.pure(acc ++ onPage)
          }
        (walk("/jobs", Vector.empty), walk("/jobs?queue=even", Vector.empty)).tupled
      }
    yield
      val (all, even) = seen
      assertEquals(all, ids.sorted.reverse)
      assertEquals(
        even,
        ids.zipWithIndex.collect { case (id, i) if i % 2 == 0 => id }.sorted.reverse
      )
  }

  test("actions: retry, cancel, delete, pause, resume and retry-discarded change the database") {
    for
      db <- fresh("uiactions")
      ids <- enqueue(db, Vector(job("a"), job("b"), job("c"), job("d", "other"), job("e", "other")))
      _ <- discard(db, ids(0)) >> discard(db, ids(3)) >> discard(db, ids(4))
      out <- ui(db) { c =>
        for
          (_, page) <- c.get(s"/jobs/${ids(0)}")
          csrf = UiClient.csrf(page)
          (retried, _) <- c.post(
            s"/jobs/${ids(0)}/retry",
            "csrf" -> csrf,
            "back" -> s"/jobs/${ids(0)}"
          )
          (_, _) <- c.post(s"/jobs/${ids(1)}/cancel", "csrf" -> csrf)
          (_, _) <- c.post(s"/jobs/${ids(2)}/delete", "csrf" -> csrf)
          (_, _) <- c.post("/queue/pause", "csrf" -> csrf, "queue" -> "other")
          pausedRows <- long(
            db,
            "SELECT count(*) FROM weir.queues WHERE paused_at IS NOT NULL AND name = 'other'"
          )
          (_, paused) <- c.get("/")
          (_, _) <- c.post("/queue/resume", "csrf" -> csrf, "queue" -> "other")
          (_, _) <- c.post("/queue/retry-discarded", "csrf" -> csrf, "queue" -> "other")
          (_, shown) <- c.get(retried.headers.get[Location].get.uri.renderString)
        yield (retried, pausedRows, paused, shown)
      }
      states <- ids.traverse(state(db, _))
      stillPaused <- long(db, "SELECT count(*) FROM weir.queues WHERE paused_at IS NOT NULL")
      maxAttempts <- long(db, s"SELECT max_attempts FROM weir.jobs WHERE id = ${ids(0)}")
    yield
      val (retried, pausedRows, paused, shown) = out
      assertEquals(retried.status, Status.SeeOther)
      assertEquals(
        retried.headers.get[Location].map(_.uri.path.renderString),
        Some(s"/jobs/${ids(0)}")
      )
      assert(shown.contains(s"job ${ids(0)}: available again"), shown)
      assertEquals(states, Vector("available", "cancelled", "gone", "available", "available"))
      assertEquals(maxAttempts, 2L)
      assertEquals(pausedRows, 1L)
      assert(paused.contains("paused") && paused.contains(">Resume</button>"), paused)
      assertEquals(stillPaused, 0L)
  }

  test("a POST without the session's anti-forgery token gets 403 and changes nothing") {
    for
      db <- fresh("uicsrf")
      ids <- enqueue(db, Vector(job("a")))
      out <- ui(db) { c =>
        for
          _ <- c.get("/")
          (none, _) <- c.post(s"/jobs/${ids(0)}/cancel")
          (wrong, _) <- c.post(s"/jobs/${ids(0)}/cancel", "csrf" -> "not-it")
          (pause, _) <- c.post("/queue/pause", "csrf" -> "", "queue" -> "default")
        yield List(none.status, wrong.status, pause.status)
      }
      // A client that never had a session: no cookie, so no token can match.
      stranger <- ui(db)(_.post(s"/jobs/${ids(0)}/delete", "csrf" -> "guess").map(_._1.status))
      st <- state(db, ids(0))
      paused <- long(db, "SELECT count(*) FROM weir.queues")
    yield
      assertEquals(out, List(Status.Forbidden, Status.Forbidden, Status.Forbidden))
      assertEquals(stranger, Status.Forbidden)
      assertEquals((st, paused), ("available", 0L))
  }

  test("read-only: no form on any page, and every POST gets 403 and changes nothing") {
    for
      db <- fresh("uireadonly")
      ids <- enqueue(db, Vector(job("a")))
      _ <- discard(db, ids(0))
      out <- ui(db, QueueUiSettings.default.withReadOnly(true)) { c =>
        for
          pages <- List("/", "/jobs", s"/jobs/${ids(0)}", "/jobs?state=discarded&queue=default")
            .traverse(c.get)
          (post, _) <- c.post(s"/jobs/${ids(0)}/retry", "csrf" -> "x")
          (pause, _) <- c.post("/queue/pause", "queue" -> "default")
        yield (pages.map(_._2), post.status, pause.status)
      }
      st <- state(db, ids(0))
    yield
      val (pages, post, pause) = out
      pages.foreach(p => assert(!p.contains("method=\"post\""), p))
      assert(pages.head.contains("read-only"), pages.head)
      assertEquals((post, pause), (Status.Forbidden, Status.Forbidden))
      assertEquals(st, "discarded")
  }

  test(
    "with a token: 401 without it or with a wrong one; ?token= gives a session and leaves the address"
  ) {
    val settings = QueueUiSettings.default.withToken(token).fold(throw _, identity)
    for
      db <- fresh("uitoken")
      ids <- enqueue(db, Vector(job("a")))
      out <- ui(db, settings) { c =>
        for
          (bare, _) <- c.get("/")
          (wrong, _) <- c.get("/?token=wrong-token-wrong-token")
          (post, _) <- c.post(s"/jobs/${ids(0)}/cancel", "csrf" -> "x")
          jarBefore <- c.cookieJar
          (tokened, _) <- c.get(s"/jobs?queue=default&token=$token")
          (after, page) <- c.get("/jobs?queue=default")
          (cancelled, _) <- c.post(
            s"/jobs/${ids(0)}/cancel",
            "csrf" -> UiClient.csrf(page),
            "back" -> "/jobs"
          )
        yield (
          bare.status,
          wrong.status,
          post.status,
          jarBefore,
          tokened,
          after.status,
          cancelled.status
        )
      }
      bearer <- ui(db, settings)(c =>
        c.run(
          Request[IO](Method.GET, uri"/workers")
            .putHeaders(Authorization(Credentials.Token(AuthScheme.Bearer, token)))
        ).map(_._1.status)
      )
      st <- state(db, ids(0))
    yield
      val (bare, wrong, post, jarBefore, tokened, after, cancelled) = out
      assertEquals(
        (bare, wrong, post),
        (Status.Unauthorized, Status.Unauthorized, Status.Unauthorized)
      )
      assertEquals(jarBefore, Map.empty[String, String])
      assertEquals(tokened.status, Status.SeeOther)
      assertEquals(
        tokened.headers.get[Location].map(_.uri.renderString),
        Some("/jobs?queue=default")
      )
      val cookie = tokened.cookies.find(_.name == "weir_queue_ui").get
      assert(cookie.httpOnly && cookie.sameSite.contains(SameSite.Strict), cookie.toString)
      assertEquals((after, cancelled), (Status.Ok, Status.SeeOther))
      assertEquals(bearer, Status.Ok)
      assertEquals(st, "cancelled")
  }

  test("mounted under a prefix: links, forms and the cookie use it; unknown paths are left alone") {
    for
      db <- fresh("uiprefix")
      ids <- enqueue(db, Vector(job("a")))
      out <- ui(db, prefix = "/admin/queue") { c =>
        for
          (r, page) <- c.get("/admin/queue/jobs")
          (moved, _) <- c.post(
            s"/admin/queue/jobs/${ids(0)}/cancel",
            "csrf" -> UiClient.csrf(page),
            "back" -> "/elsewhere"
          )
          (other, _) <- c.get("/admin/queue/nothing-here")
        yield (r, page, moved, other.status)
      }
    yield
      val (r, page, moved, other) = out
      assert(page.contains(s"""href="/admin/queue/jobs/${ids(0)}""""), page)
      assert(page.contains(s"""action="/admin/queue/jobs/${ids(0)}/cancel""""), page)
      assert(page.contains("""href="/admin/queue/ui.css""""), page)
      assertEquals(r.cookies.find(_.name == "weir_queue_ui").flatMap(_.path), Some("/admin/queue"))
      // A `back` outside the ui is not followed: the overview instead.
      assertEquals(moved.headers.get[Location].map(_.uri.path.renderString), Some("/admin/queue/"))
      assertEquals(other, Status.NotFound)
  }
