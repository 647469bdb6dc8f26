package weir.cli.queue

import cats.effect.IO
import cats.syntax.all.*
import com.monovore.decline.Command
import java.net.URI
import java.net.http.{HttpClient, HttpRequest, HttpResponse}
import munit.CatsEffectSuite
import scala.concurrent.duration.*
import weir.cli.common.Exit
import weir.engine.{Percentiles, Snapshot}
import weir.postgres.{PgSession, TestPg}
import java.time.Instant
import weir.Attempts
import weir.postgres.queue.{Enqueue, Fenced, Job, NewJob, QueueSchema, Worker, WorkerEvent}

/** `weir worker --metrics`: the Prometheus page, exactly, from a known progress and tally of
  * events; then a real worker on the test PostgreSQL (jobs of two kinds, one failing both its
  * attempts) scraped over HTTP until it has seen every outcome: the outcomes by kind exactly, the
  * latency histograms, the queue's depth then 0, the content type; a port in use is a one-line
  * error and exit 2.
  */
class WorkerMetricsSuite extends CatsEffectSuite:

  override def munitIOTimeout: Duration = 2.minutes

  private val worker = Command("worker", "")(WorkerOptions.opts(Map("PGHOST" -> "127.0.0.1")))

  private def plan(args: String*): WorkerPlan =
    worker.parse(args.toList).fold(h => fail(h.errors.mkString("; ")), identity)

  test("the page: counters, outcomes by kind, in flight, quantiles, histograms and depth") {
    val latency = Percentiles(8, 2.millis, 3.millis, 5.millis, 5.millis, 5.millis)
    val snapshot = Snapshot(
      elapsed = 1.second,
      taken = 11,
      batches = 2,
      succeeded = 8,
      failed = Map.empty,
      cancelled = 0,
      notStarted = 0,
      retried = 0,
      inFlight = 3,
      queued = 0,
      ratePerSecond = 8,
      latency = latency,
      recentLatency = latency,
      concurrencyLimit = 16
    )
    val counts = Worker.Counts.zero.copy(
      claims = 2,
      claimedJobs = 11,
      written = Fenced.Written(completed = 8, retried = 1, discarded = 1, rejected = 0)
    )
    def job(kind: String) = Job(1, "q", "p", 0, Instant.EPOCH, 1, 2, kind)
    val boom = new RuntimeException("boom")
    val tally = List(
      WorkerEvent.Succeeded(job("email"), 1.milli),
      WorkerEvent.Succeeded(job("email"), 1.milli),
      WorkerEvent.Failed(job("email"), boom, Some(1.second)),
      WorkerEvent.Failed(job("re\"size"), boom, None),
      WorkerEvent.Discarded(job("re\"size"), "boom"),
      WorkerEvent.Snoozed(job("email"), 1.second),
      WorkerEvent.Claimed(Vector(job("email")), 250.millis),
      WorkerEvent.Claimed(Vector(job("email")), 500.millis),
      WorkerEvent.Acknowledged(5, counts.written, 2.seconds),
      WorkerEvent.Lagged(4)
    ).foldLeft(WorkerTally.Tally.empty)(_.add(_))
    val page =
      PrometheusText("q\"1", Some(Worker.Progress(snapshot, counts, 1)), tally, Some(4))
    val samples = page.linesIterator.filterNot(_.startsWith("#")).toList
    val q = """queue="q\"1""""
    val rs = """kind="re\"size""""
    val les = List("0.0005", "0.001", "0.0025", "0.005", "0.01", "0.025", "0.05", "0.1", "0.25") ++
      List("0.5", "1", "2.5", "5", "10", "+Inf")
    def buckets(name: String, cumulative: List[Int]) =
      les.zip(cumulative).map((le, n) => s"""${name}_bucket{$q,le="$le"} $n""")
    assertEquals(
      samples,
      List(
        s"""weir_jobs_completed_total{$q,kind="email"} 2""",
        s"""weir_jobs_completed_total{$q,$rs} 0""",
        s"""weir_jobs_failed_total{$q,kind="email"} 1""",
        s"""weir_jobs_failed_total{$q,$rs} 1""",
        s"""weir_jobs_retried_total{$q,kind="email"} 1""",
        s"""weir_jobs_retried_total{$q,$rs} 0""",
        s"""weir_jobs_discarded_total{$q,kind="email"} 0""",
        s"""weir_jobs_discarded_total{$q,$rs} 1""",
        s"""weir_jobs_rejected_total{$q} 0""",
        s"""weir_jobs_claimed_total{$q} 11""",
        s"""weir_claims_total{$q} 2""",
        s"""weir_leases_lost_total{$q} 0""",
        s"""weir_connections_lost_total{$q} 1""",
        s"""weir_events_dropped_total{$q} 4""",
        s"""weir_jobs_in_flight{$q} 3""",
        s"""weir_job_duration_seconds{$q,quantile="0.5"} 0.002""",
        s"""weir_job_duration_seconds{$q,quantile="0.9"} 0.003""",
        s"""weir_job_duration_seconds{$q,quantile="0.99"} 0.005""",
        s"""weir_job_duration_seconds{$q,quantile="0.999"} 0.005""",
        s"""weir_job_duration_seconds_count{$q} 8"""
      ) ++
        buckets("weir_claim_duration_seconds", List.fill(8)(0) ++ List(1) ++ List.fill(6)(2)) ++
        List(
          s"""weir_claim_duration_seconds_sum{$q} 0.75""",
          s"""weir_claim_duration_seconds_count{$q} 2"""
        ) ++
        buckets("weir_ack_duration_seconds", List.fill(11)(0) ++ List.fill(4)(1)) ++
        List(
          s"""weir_ack_duration_seconds_sum{$q} 2""",
          s"""weir_ack_duration_seconds_count{$q} 1""",
          s"""weir_queue_depth{$q} 4"""
        )
    )
    assert(page.contains("# TYPE weir_jobs_completed_total counter\n"))
    assert(page.contains("# TYPE weir_job_duration_seconds summary\n"))
    assert(page.contains("# TYPE weir_claim_duration_seconds histogram\n"))
    assert(!PrometheusText("q", None, WorkerTally.Tally.empty, None).contains("weir_queue_depth"))
  }

  test("--metrics must be HOST:PORT with a port") {
    val errors =
      (a: String) => worker.parse(List("--sleep", "0", "--metrics", a)).left.map(_.errors)
    assertEquals(
      errors("9464"),
      Left(List("--metrics: '9464' is not HOST:PORT (e.g. 127.0.0.1:9464)"))
    )
    assertEquals(
      errors("127.0.0.1:0"),
      Left(List("--metrics: '127.0.0.1:0': give a port from 1 to 65535"))
    )
    assertEquals(
      plan("--sleep", "0", "--metrics", "[::1]:9100").metrics.map(_.port.value),
      Some(9100)
    )
  }

  private val client = HttpClient.newHttpClient()

  private def get(port: Int, path: String): IO[(Int, String, Option[String])] =
    IO.blocking {
      val r = client.send(
        HttpRequest.newBuilder(URI.create(s"http://127.0.0.1:$port$path")).build(),
        HttpResponse.BodyHandlers.ofString()
      )
      (r.statusCode, r.body, Option(r.headers.firstValue("content-type").orElse(null)))
    }

  private def freePort: IO[Int] =
    IO.blocking {
      val s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress)
      try s.getLocalPort
      finally s.close()
    }

  private def sample(page: String, name: String): Option[Double] =
    page.linesIterator.collectFirst {
      case l if l.startsWith(name + "{") => l.substring(l.lastIndexOf(' ') + 1).toDouble
    }

  // The samples of the outcomes by kind.
  private def outcomes(page: String): List[String] =
    page.linesIterator.filter(l => l.startsWith("weir_jobs_") && l.contains("kind=")).toList

  private val expected = List(
    """weir_jobs_completed_total{queue="default",kind="email"} 9""",
    """weir_jobs_completed_total{queue="default",kind="resize"} 15""",
    """weir_jobs_failed_total{queue="default",kind="email"} 2""",
    """weir_jobs_failed_total{queue="default",kind="resize"} 0""",
    """weir_jobs_retried_total{queue="default",kind="email"} 1""",
    """weir_jobs_retried_total{queue="default",kind="resize"} 0""",
    """weir_jobs_discarded_total{queue="default",kind="email"} 1""",
    """weir_jobs_discarded_total{queue="default",kind="resize"} 0"""
  )

  test("a real worker, scraped over HTTP: outcomes by kind exactly, latencies, depth 0; 404 else") {
    def kinded(kind: String, payload: Int) = NewJob(payload.toString).withKind(kind).toOption.get
    val email = (1 to 10).map(kinded("email", _).withMaxAttempts(Attempts(2)))
    val resize = (11 to 25).map(kinded("resize", _))
    val args = List("--exec", "--backoff", "10ms", "--poll", "200ms", "--no-live")
    for
      db <- TestPg.database("metrics")
      _ <- PgSession.open[IO](db).use(QueueSchema.migrate[IO])
      _ <- PgSession.open[IO](db).use(s => Enqueue.many(s, email ++ resize))
      port <- freePort
      // Payload 3 (an email) fails both its attempts: failed twice, retried once, discarded.
      command = List("--", "test", "{}", "-ne", "3")
      p = plan((args ++ List("--metrics", s"127.0.0.1:$port") ++ command)*).copy(target = db)
      fiber <- WorkerCommand.run(p).start
      // Scrape until the worker has seen 24 jobs complete and one discarded, and its progress
      // (sampled on the run's tick) has counted 26 claimed (bounded: 60 s).
      done <- (get(port, "/metrics").attempt, IO.sleep(100.millis))
        .mapN((r, _) => r.toOption)
        .iterateUntil(_.exists { r =>
          val o = outcomes(r._2)
          o.contains(expected(0)) && o.contains(expected(1)) && o.contains(expected(6)) &&
          sample(r._2, "weir_jobs_claimed_total").contains(26.0)
        })
        .timeout(60.seconds)
      other <- get(port, "/")
      _ <- fiber.cancel
    yield
      val (status, page, contentType) = done.get
      assertEquals(status, 200)
      assertEquals(contentType, Some(PrometheusText.contentType))
      assertEquals(outcomes(page), expected)
      assertEquals(sample(page, "weir_jobs_claimed_total"), Some(26.0))
      assertEquals(sample(page, "weir_queue_depth"), Some(0.0))
      assertEquals(sample(page, "weir_events_dropped_total"), Some(0.0))
      // Each claim that took jobs is in the claim histogram (+Inf counts them all).
      val claims = sample(page, "weir_claim_duration_seconds_count").get
      assert(claims >= 1 && claims <= sample(page, "weir_claims_total").get, page)
      assertEquals(page.linesIterator.count(_.startsWith("weir_claim_duration_seconds_bucket")), 15)
      val inf =
        s"""weir_claim_duration_seconds_bucket{queue="default",le="+Inf"} ${claims.toLong}"""
      assert(page.linesIterator.contains(inf), page)
      assert(sample(page, "weir_ack_duration_seconds_count").exists(_ >= 1), page)
      assertEquals(other._1, 404)
  }

  test("two queues: the page labels them together and sums their depths; the summary counts each") {
    for
      db <- TestPg.database("metricsqueues")
      _ <- PgSession.open[IO](db).use(QueueSchema.migrate[IO])
      _ <- PgSession.open[IO](db).use { s =>
        val on = (q: String, n: Int) => (1 to n).map(i => NewJob(s"$i").withQueue(q).toOption.get)
        Enqueue.many(s, on("mail", 10) ++ on("sms", 15))
      }
      port <- freePort
      p = plan("--sleep", "0", "--no-live", "-q", "mail,sms", "--metrics", s"127.0.0.1:$port")
        .copy(target = db)
      fiber <- WorkerCommand.run(p).start
      done <- (get(port, "/metrics").attempt, IO.sleep(100.millis))
        .mapN((r, _) => r.toOption)
        // Completions are tallied from events as they happen; claims come with the run's tick.
        .iterateUntil(_.exists { r =>
          List("weir_jobs_claimed_total", "weir_jobs_completed_total")
            .forall(sample(r._2, _).contains(25.0))
        })
        .timeout(60.seconds)
      _ <- fiber.cancel
    yield
      val page = done.get._2
      assert(page.contains("weir_jobs_claimed_total{queue=\"mail,sms\"} 25\n"), page)
      assertEquals(sample(page, "weir_jobs_completed_total"), Some(25.0))
      assertEquals(sample(page, "weir_queue_depth"), Some(0.0))
      val counts = Worker.Counts.zero.copy(claimedByQueue = Map("mail" -> 10L, "sms" -> 1500L))
      val snapshot = Snapshot(
        1.second,
        0,
        0,
        0,
        Map.empty,
        0,
        0,
        0,
        0,
        0,
        0,
        Percentiles(0, 0.millis, 0.millis, 0.millis, 0.millis, 0.millis),
        Percentiles(0, 0.millis, 0.millis, 0.millis, 0.millis, 0.millis),
        16
      )
      val text = WorkerRender(p, Worker.Report("w", snapshot, counts, 0), interrupted = false)
      assert(text.startsWith("weir worker w, queues mail,sms, handler"), text)
      assert(text.endsWith("\n  jobs claimed by queue: mail 10, sms 1,500"), text)
  }

  test("a port already in use: one line naming --metrics, exit 2") {
    for
      db <- TestPg.database("metricsbusy")
      _ <- PgSession.open[IO](db).use(QueueSchema.migrate[IO])
      busy <- IO.blocking(new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress))
      p = plan("--sleep", "0", "--no-live", "--metrics", s"127.0.0.1:${busy.getLocalPort}")
      code <- WorkerCommand.run(p.copy(target = db)).guarantee(IO.blocking(busy.close()))
    yield assertEquals(code, Exit.BadInput)
  }
