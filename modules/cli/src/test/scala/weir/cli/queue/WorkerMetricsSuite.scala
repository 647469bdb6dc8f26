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
import weir.postgres.queue.{Enqueue, Fenced, NewJob, QueueSchema, Worker}

/** `weir worker --metrics`: the Prometheus page, exactly, from a known progress; then a real worker
  * on the test PostgreSQL scraped over HTTP until it has completed every job, its queue's depth
  * then 0; a port in use is a one-line error and exit 2.
  */
class WorkerMetricsSuite extends CatsEffectSuite:

  override def munitIOTimeout: Duration = 2.minutes

  private val worker = Command("worker", "")(WorkerOptions.opts(Map("PGHOST" -> "127.0.0.1")))

  private def plan(args: String*): WorkerPlan =
    worker.parse(args.toList).fold(h => fail(h.errors.mkString("; ")), identity)

  test("the page: counters, in flight, quantiles and depth, labelled by the queue") {
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
    val page = PrometheusText("q\"1", Some(Worker.Progress(snapshot, counts, 1)), Some(4))
    val samples = page.linesIterator.filterNot(_.startsWith("#")).toList
    assertEquals(
      samples,
      List(
        """weir_jobs_completed_total{queue="q\"1"} 8""",
        """weir_jobs_failed_total{queue="q\"1"} 2""",
        """weir_jobs_discarded_total{queue="q\"1"} 1""",
        """weir_jobs_rejected_total{queue="q\"1"} 0""",
        """weir_jobs_claimed_total{queue="q\"1"} 11""",
        """weir_claims_total{queue="q\"1"} 2""",
        """weir_leases_lost_total{queue="q\"1"} 0""",
        """weir_connections_lost_total{queue="q\"1"} 1""",
        """weir_jobs_in_flight{queue="q\"1"} 3""",
        """weir_job_duration_seconds{queue="q\"1",quantile="0.5"} 0.002""",
        """weir_job_duration_seconds{queue="q\"1",quantile="0.9"} 0.003""",
        """weir_job_duration_seconds{queue="q\"1",quantile="0.99"} 0.005""",
        """weir_job_duration_seconds{queue="q\"1",quantile="0.999"} 0.005""",
        """weir_job_duration_seconds_count{queue="q\"1"} 8""",
        """weir_queue_depth{queue="q\"1"} 4"""
      )
    )
    assert(page.contains("# TYPE weir_jobs_completed_total counter\n"))
    assert(page.contains("# TYPE weir_job_duration_seconds summary\n"))
    assert(!PrometheusText("q", None, None).contains("weir_queue_depth"))
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

  private def get(port: Int, path: String): IO[(Int, String)] =
    IO.blocking {
      val r = client.send(
        HttpRequest.newBuilder(URI.create(s"http://127.0.0.1:$port$path")).build(),
        HttpResponse.BodyHandlers.ofString()
      )
      (r.statusCode, r.body)
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

  test("a real worker, scraped over HTTP: every job completed, the depth then 0; 404 elsewhere") {
    for
      db <- TestPg.database("metrics")
      _ <- PgSession.open[IO](db).use(QueueSchema.migrate[IO])
      _ <- PgSession.open[IO](db).use(s => Enqueue.many(s, (1 to 25).map(i => NewJob(s"$i"))))
      port <- freePort
      p = plan("--sleep", "0", "--no-live", "--metrics", s"127.0.0.1:$port").copy(target = db)
      fiber <- WorkerCommand.run(p).start
      // Scrape until the worker has written all 25 completions (bounded: 60 s).
      done <- (get(port, "/metrics").attempt, IO.sleep(100.millis))
        .mapN((r, _) => r.toOption)
        .iterateUntil(_.exists(r => sample(r._2, "weir_jobs_completed_total").contains(25.0)))
        .timeout(60.seconds)
      other <- get(port, "/")
      _ <- fiber.cancel
    yield
      val page = done.get._2
      assertEquals(done.get._1, 200)
      assertEquals(sample(page, "weir_jobs_claimed_total"), Some(25.0))
      assertEquals(sample(page, "weir_queue_depth"), Some(0.0))
      assertEquals(sample(page, "weir_jobs_failed_total"), Some(0.0))
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
        .iterateUntil(_.exists(r => sample(r._2, "weir_jobs_completed_total").contains(25.0)))
        .timeout(60.seconds)
      _ <- fiber.cancel
    yield
      val page = done.get._2
      assert(page.contains("weir_jobs_claimed_total{queue=\"mail,sms\"} 25\n"), page)
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
