package weir.postgres.queue.ui

import cats.data.NonEmptyList
import cats.effect.{IO, Ref, Resource}
import cats.syntax.all.*
import com.comcast.ip4s.{Host, Port}
import munit.CatsEffectSuite
import org.http4s.ember.server.EmberServerBuilder
import org.openqa.selenium.{
  By,
  NoAlertPresentException,
  OutputType,
  StaleElementReferenceException,
  WebDriver
}
import org.openqa.selenium.chrome.ChromeDriver
import java.nio.file.{Files, Paths, StandardCopyOption}
import scala.concurrent.duration.*
import scala.jdk.CollectionConverters.*
import weir.{Attempts, PositiveDuration}
import weir.postgres.{PgSession, TestPg}
import weir.postgres.queue.*

/** The ui in a real browser: Debian's chromium, headless, driven by Selenium through chromedriver
  * (installed by [[Chromium]] when missing), against the routes served by Ember and a real worker
  * in this JVM on a real PostgreSQL. Every wait is for a state (of the database or the page),
  * bounded; nothing asserts a time.
  *
  * With `-Dweir.ui.screenshots=DIR`, each scenario leaves a PNG of its page in DIR.
  */
class BrowserSuite extends CatsEffectSuite:
  import QueueDbs.*
  import Faults.{waitCount, waitUntil}

  override def munitIOTimeout: Duration = 4.minutes

  private val shots = sys.props.get("weir.ui.screenshots").map(Paths.get(_))

  private def shoot(driver: ChromeDriver, name: String): IO[Unit] =
    shots.traverse_ { dir =>
      IO.blocking {
        Files.createDirectories(dir)
        val png = driver.getScreenshotAs(OutputType.FILE).toPath
        Files.copy(png, dir.resolve(s"$name.png"), StandardCopyOption.REPLACE_EXISTING)
      }.void
    }

  private val browser: Resource[IO, ChromeDriver] =
    Resource.make(IO.blocking(Chromium.driver()))(d => IO.blocking(d.quit()))

  /** The ui of `db` on a free loopback port: its address. */
  private def served(db: weir.postgres.PgTarget): Resource[IO, String] =
    val port = TestPg.freePort()
    for
      sessions <- QueueUi.pooled[IO](db, 2)
      routes <- Resource.eval(
        QueueUi.routes[IO](
          sessions,
          QueueUiSettings.default.withRefreshSeconds(1).fold(throw _, identity)
        )
      )
      _ <- EmberServerBuilder
        .default[IO]
        .withHost(Host.fromString("127.0.0.1").get)
        .withPort(Port.fromInt(port).get)
        .withHttpApp(routes.orNotFound)
        .withShutdownTimeout(Duration.Zero)
        .build
    yield s"http://127.0.0.1:$port"

  private def queue(names: String*): QueueSettings =
    quickQueue(PositiveDuration.seconds(3))
      .withQueues(NonEmptyList.fromListUnsafe(names.toList))
      .fold(e => throw e, identity)

  private def open(d: WebDriver, url: String): IO[Unit] = IO.blocking(d.get(url))

  private def text(d: WebDriver): IO[String] =
    IO.blocking(d.findElement(By.tagName("body")).getText)

  /** Clicks the button of the form posting to a path ending in `action` (with `queue` when given);
    * again (five times at most) when the live part was replaced under the click.
    */
  private def click(d: WebDriver, action: String, queue: Option[String] = None): IO[Unit] =
    val once = IO.blocking {
      val forms = d.findElements(By.cssSelector("form.act")).asScala.filter { f =>
        f.getAttribute("action").endsWith(action) &&
        queue.forall(q =>
          f.findElements(By.cssSelector(s"input[name=queue][value='$q']")).size == 1
        )
      }
      assert(
        forms.size == 1,
        s"${forms.size} form(s) post to $action${queue.fold("")(q => s" for $q")}"
      )
      forms.head.findElement(By.tagName("button")).click()
    }
    def attempt(left: Int): IO[Unit] =
      once.recoverWith { case _: StaleElementReferenceException if left > 0 => attempt(left - 1) }
    attempt(5)

  private def pageSays(d: WebDriver, what: String): IO[Unit] =
    waitUntil(s"the page to say '$what'")(text(d).map(_.contains(what)))

  private def stateOf(id: Long) =
    s"SELECT count(*) FROM weir.jobs WHERE id = $id AND state = "

  private def enqueue(db: weir.postgres.PgTarget, jobs: NewJob*): IO[Vector[Long]] =
    PgSession.open[IO](db).use(s => jobs.toVector.traverse(Enqueue.one(s, _))).map(_.map(_.id))

  private def job(payload: String, queue: String, attempts: Int = 25) =
    NewJob(payload)
      .withQueue(queue)
      .map(j => j.withMaxAttempts(Attempts.from(attempts).fold(throw _, identity)))
      .fold(throw _, identity)

  test(
    "the overview; pause a queue and its worker stops claiming; resume it and the jobs complete"
  ) {
    for
      db <- fresh("uibrowserpause")
      _ <- enqueue(db, job("first", "work"))
      out <- (
        browser,
        served(db),
        Worker.resource[IO](db, queue("work", "probe"), smallEngine)
      ).tupled.use { (d, url, w) =>
        w.run(_ => IO.unit).background.surround {
          for
            _ <- waitCount(db, "SELECT count(*) FROM weir.jobs WHERE state = 'completed'", 1)
            _ <- open(d, s"$url/")
            _ <- pageSays(d, "work")
            overview <- text(d)
            _ <- shoot(d, "queue-ui-overview")
            _ <- click(d, "/queue/pause", Some("work"))
            _ <- pageSays(d, "queue work: paused")
            paused <- long(
              db,
              "SELECT count(*) FROM weir.queues WHERE name = 'work' AND paused_at IS NOT NULL"
            )
            held <- enqueue(db, (1 to 5).map(i => job(s"held-$i", "work"))*)
            // The worker serves both queues in turn: once it has completed a job of `probe`
            // enqueued after the five, it has looked at `work` since, and claimed nothing there.
            probe <- enqueue(db, job("probe", "probe"))
            _ <- waitCount(
              db,
              s"SELECT count(*) FROM weir.jobs WHERE id = ${probe.head} AND state = 'completed'",
              1
            )
            _ <- waitCount(
              db,
              "SELECT count(*) FROM weir.jobs WHERE state = 'completed' AND queue = 'probe'",
              1
            )
            stillAvailable <- long(
              db,
              s"SELECT count(*) FROM weir.jobs WHERE id IN (${held.mkString(",")}) AND state = 'available'"
            )
            _ <- open(d, s"$url/")
            _ <- click(d, "/queue/resume", Some("work"))
            _ <- pageSays(d, "queue work: resumed")
            // The live part refreshes itself (every second here): the page shown after the resume
            // comes to count the six completions without being reloaded.
            _ <- waitUntil("the overview to count 6 completions of work")(
              IO.blocking(
                d.findElements(By.xpath("//tr[td/a[text()='work']]/td[9]"))
                  .asScala
                  .map(_.getText)
                  .toList
              ).attempt // the live part may be replaced while it is read
                .map(_.toOption.contains(List("6")))
            )
            _ <- waitCount(
              db,
              s"SELECT count(*) FROM weir.jobs WHERE id IN (${held.mkString(",")}) AND state = 'completed'",
              5
            )
            _ <- shoot(d, "queue-ui-resumed")
          yield (overview, paused, stillAvailable)
        }
      }
    yield
      val (overview, paused, stillAvailable) = out
      assert(overview.contains("Jobs per second"), overview)
      assertEquals(paused, 1L)
      assertEquals(stillAvailable, 5L)
  }

  test("retry a discarded job from its page and see it complete; cancel a running job") {
    for
      db <- fresh("uibrowserretry")
      failures <- Ref.of[IO, Int](0)
      ids <- enqueue(db, job("flaky", "work", attempts = 1), job("block", "work"))
      (flaky, block) = (ids(0), ids(1))
      handler = (j: Job) =>
        j.payload match
          case "flaky" =>
            failures
              .getAndUpdate(_ + 1)
              .flatMap(n => IO.raiseWhen(n == 0)(new RuntimeException("first time <fails>")))
          case "block" => IO.never
          case _       => IO.unit
      out <- (browser, served(db), Worker.resource[IO](db, queue("work"), smallEngine)).tupled.use {
        (d, url, w) =>
          w.run(handler).background.surround {
            for
              _ <- waitCount(db, stateOf(flaky) + "'discarded'", 1)
              _ <- open(d, s"$url/jobs/$flaky")
              _ <- pageSays(d, "first time <fails>")
              _ <- shoot(d, "queue-ui-job")
              _ <- click(d, s"/jobs/$flaky/retry")
              _ <- pageSays(d, s"job $flaky: available again")
              _ <- waitCount(db, stateOf(flaky) + "'completed'", 1)
              _ <- pageSays(d, "completed")
              _ <- waitCount(db, stateOf(block) + "'running'", 1)
              _ <- open(d, s"$url/jobs/$block")
              _ <- click(d, s"/jobs/$block/cancel")
              _ <- pageSays(d, s"job $block: cancelled")
              _ <- waitCount(db, stateOf(block) + "'cancelled'", 1)
              _ <- open(d, s"$url/workers")
              _ <- shoot(d, "queue-ui-workers")
              runs <- failures.get
            yield runs
          }
      }
    yield assertEquals(out, 2)
  }

  test("a payload of <script>…</script> shows as text: no alert, nothing run") {
    val evil = "<script>window.__pwned = 1; alert('pwned')</script>"
    for
      db <- fresh("uibrowserxss")
      ids <- enqueue(db, job(evil, "evil<b>queue</b>"))
      out <- (browser, served(db)).tupled.use { (d, url) =>
        for
          _ <- open(d, s"$url/jobs/${ids.head}")
          payload <- IO.blocking(d.findElement(By.id("job-payload")).getText)
          alert <- IO.blocking(
            scala.util
              .Try(d.switchTo().alert())
              .failed
              .toOption
              .exists(_.isInstanceOf[NoAlertPresentException])
          )
          pwned <- IO.blocking(
            d.asInstanceOf[ChromeDriver].executeScript("return typeof window.__pwned")
          )
          _ <- open(d, s"$url/jobs")
          list <- text(d)
          _ <- open(d, s"$url/")
          overview <- text(d)
        yield (payload, alert, pwned, list, overview)
      }
    yield
      val (payload, noAlert, pwned, list, overview) = out
      assertEquals(payload, evil)
      assert(noAlert, "an alert is open")
      assertEquals(pwned, "undefined")
      assert(list.contains(evil), list)
      assert(overview.contains("evil<b>queue</b>"), overview)
  }
