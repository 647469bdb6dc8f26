package weir.cli.load

import com.monovore.decline.Command
import munit.FunSuite
import scala.concurrent.duration.*
import weir.Concurrency
import weir.http.{LoadConfig, Target}

/** `weir load` options: good input becomes the intended configuration; bad input is refused with a
  * message that names the option (the command then exits with 2 and runs nothing).
  */
class LoadOptionsSuite extends FunSuite:

  private val command = Command("load", "")(LoadOptions.opts)
  private val url = "http://127.0.0.1:8000/{id}"

  private def config(args: String*): LoadConfig =
    command.parse(args.toList).fold(help => fail(help.errors.mkString("; ")), _.config)

  private def errors(args: String*): List[String] =
    command.parse(args.toList).fold(_.errors, _ => Nil)

  test("defaults: 100 in flight, no rate, 30 s timeout, no retries, 10 s grace, 20 000 warm-up") {
    val c = config(url, "-n", "1000")
    assertEquals(c.concurrency, LoadConfig.Concurrency.Fixed(Concurrency(100)))
    assertEquals(
      (c.rate, c.timeout: FiniteDuration, c.retries, c.grace: FiniteDuration),
      (None, 30.seconds, 0, 10.seconds)
    )
    assertEquals(
      (c.planned, c.warmUp, c.duration.map(d => d: FiniteDuration)),
      (Some(1000L), 20000L, None)
    )
    c.source match
      case LoadConfig.Source.Template(t, _) =>
        assertEquals(t.target(7), Target("127.0.0.1", 8000, "/7"))
      case other => fail(s"$other")
  }

  test("auto concurrency, retries, a rate, a duration in hours, headers and a body") {
    val c = config(
      url,
      "--duration",
      "1h",
      "-c",
      "auto:10..500",
      "--retries",
      "3",
      "--rate",
      "2500",
      "-H",
      "X-Trace: 1",
      "-m",
      "post",
      "--body",
      "{}"
    )
    c.concurrency match
      case LoadConfig.Concurrency.Adaptive(a) => assertEquals((a.min: Int, a.max: Int), (10, 500))
      case other                              => fail(s"$other")
    assertEquals(
      (c.duration.map(d => d: FiniteDuration), c.retries, c.rate, c.planned),
      (Some(1.hour), 3, Some(2500.0), None)
    )
    assertEquals((c.request.method, c.request.headers), ("POST", List("X-Trace" -> "1")))
    assertEquals(config(url, "-n", "5", "-c", "auto").maxConcurrency, 1000)
    // oha's and hey's -z DURATION and -q RATE.
    val short = config(url, "-z", "15s", "-q", "200", "-c", "50")
    assertEquals(
      (short.duration.map(d => d: FiniteDuration), short.rate),
      (Some(15.seconds), Some(200.0))
    )
  }

  List(
    List(url, "-n", "abc") -> "--requests: 'abc' is not a whole number",
    List(url, "-n", "0") -> "-n/--requests must be a positive number",
    List(url, "-n", "5", "-c", "0") -> "-c/--concurrency must be auto or a number in 1..1000000",
    List(url, "-n", "5", "-c", "100000000") -> "got 100000000",
    List(
      url,
      "-n",
      "5",
      "-c",
      "auto:50..10"
    ) -> "-c/--concurrency: the most concurrency (10) is below",
    List(url, "-n", "5", "-c", "lots") -> "--concurrency: 'lots' is not a whole number",
    List(url, "-n", "5", "--timeout", "0") -> "--timeout: the timeout must be positive",
    List(url, "--duration", "0s") -> "--duration: the duration must be positive",
    List(url, "--duration", "soon") -> "--duration: 'soon' is not a duration",
    List(url, "-n", "5", "--retries", "-1") -> "--retries: the retries must be in 0..100",
    List(url, "-n", "5", "--rate", "fast") -> "--rate: 'fast' is not a number",
    List(url, "-n", "5", "--rate", "0") -> "--rate: the rate must be a positive number",
    List(url, "-n", "5", "-H", "Bad Name: x") -> "--header: 'Bad Name' is not a header name",
    List(url, "-n", "5", "-m", "GE T") -> "--method: 'GE T' is not an HTTP method",
    List(url, "-n", "5", "--max-error-rate", "2") -> "--max-error-rate must be between 0 and 1",
    List(url, "-n", "5", "--tls-engine", "boring") ->
      "--tls-engine: 'boring' is not a TLS engine; write jdk or openssl",
    List(url) -> "give -n/--requests (how many) or --duration (how long)",
    List("ftp://example.org/{id}", "-n", "5") -> "only http:// and https://",
    List("--urls", "/tmp") -> "--urls: /tmp is a directory",
    List("--urls", "/no/such/file") -> "--urls: /no/such/file does not exist",
    List(url, "--urls", "/tmp/x") -> "either URL-TEMPLATE or --urls",
    List(url, "-n", "5", "--cacert", "/no/such/ca.pem") ->
      "--cacert: cannot read /no/such/ca.pem: no such file or directory",
    List(url, "-n", "5", "--cacert", "/tmp") -> "--cacert: cannot read /tmp: "
  ).foreach { (args, message) =>
    test(s"rejects ${args.mkString(" ")}") {
      val found = errors(args*)
      assert(found.exists(_.contains(message)), s"expected '$message', got $found")
    }
  }
