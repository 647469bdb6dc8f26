package weir.postgres.queue.ui

import java.nio.file.{Files, Path, Paths}
import org.openqa.selenium.chrome.{ChromeDriver, ChromeDriverService, ChromeOptions}
import scala.sys.process.*

/** Debian's chromium and chromedriver for the browser tests, installed with apt-get (through sudo
  * when not root) when missing, as scripts/report-screenshots.sh installs chromium; a clear failure
  * when they cannot be.
  */
object Chromium:

  private def which(name: String): Option[Path] =
    sys.env
      .getOrElse("PATH", "/usr/bin")
      .split(':')
      .map(Paths.get(_, name))
      .find(Files.isExecutable)

  private def root: Boolean = scala.util.Try("id -u".!!.trim == "0").getOrElse(false)

  /** The browser and the driver, installed first when one is missing. */
  lazy val paths: (Path, Path) =
    def found = for
      b <- which("chromium").orElse(which("chromium-browser"))
      d <- which("chromedriver")
    yield (b, d)
    found.getOrElse {
      val sudo = if root then Seq.empty else Seq("sudo", "-n")
      val log = new StringBuilder
      val logger = ProcessLogger(
        l =>
          log.append(l).append('\n'); ()
        ,
        l =>
          log.append(l).append('\n'); ()
      )
      val env = "DEBIAN_FRONTEND" -> "noninteractive"
      val ok =
        Process(sudo ++ Seq("apt-get", "update", "-q"), None, env).!(logger) == 0 &&
          Process(
            sudo ++ Seq("apt-get", "install", "-y", "-q", "chromium", "chromium-driver"),
            None,
            env
          )
            .!(logger) == 0
      found.getOrElse(
        throw new IllegalStateException(
          s"the browser tests need Debian's chromium and chromium-driver, and installing them ${if ok then "left them missing" else "failed"}: run `apt-get install -y chromium chromium-driver` (as root) and test again.\n${log.takeRight(2000)}"
        )
      )
    }

  /** A headless chromium driven by chromedriver (`--no-sandbox` when root), 1200x900. */
  def driver(): ChromeDriver =
    val (browser, chromedriver) = paths
    val options = new ChromeOptions()
    options.setBinary(browser.toFile)
    options.addArguments(
      "--headless=new",
      "--disable-gpu",
      "--disable-dev-shm-usage",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--hide-scrollbars",
      "--force-device-scale-factor=1",
      "--window-size=1200,900"
    )
    if root then
      val _ = options.addArguments("--no-sandbox")
    val service = new ChromeDriverService.Builder()
      .usingDriverExecutable(chromedriver.toFile)
      .usingAnyFreePort()
      .build()
    new ChromeDriver(service, options)
