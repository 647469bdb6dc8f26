package weir.cli.queue

import com.monovore.decline.Command
import munit.FunSuite
import scala.concurrent.duration.*
import weir.http.Delay

/** `weir worker` and `weir enqueue` options: good input becomes the intended plan; bad input is
  * refused with a message naming the option (the command then exits 2 and runs nothing).
  */
class QueueOptionsSuite extends FunSuite:

  private val env = Map("PGHOST" -> "127.0.0.1", "PGUSER" -> "me")
  private val worker = Command("worker", "")(WorkerOptions.opts(env))
  private val enqueue = Command("enqueue", "")(EnqueueOptions.opts(env))
  private val torture = Command("torture", "")(TortureCommand.planOpts(env))

  private def plan(args: String*): WorkerPlan =
    worker.parse(args.toList).fold(h => fail(h.errors.mkString("; ")), identity)

  private def errors(c: Command[?], args: String*): List[String] =
    c.parse(args.toList).fold(_.errors, _ => Nil)

  test("--exec keeps the command's arguments as given, {} where the payload goes; never a shell") {
    val p = plan("--exec", "-c", "4", "--", "convert", "{}", "-resize", "64x64", "{}.png")
    assertEquals(p.handler, JobHandler.Exec(List("convert", "{}", "-resize", "64x64", "{}.png")))
    assertEquals(p.worker.limits.concurrency, 4)
    assertEquals(p.queue.claimBatch, 4)
  }

  test(
    "--http fills {payload} in the path; --sleep reads weir's distributions; the lease sets the heartbeat"
  ) {
    plan("--http", "http://127.0.0.1:8000/feeds/{payload}?x=1").handler match
      case JobHandler.Http(host, port, parts, _, _, _) =>
        assertEquals((host, port, parts), ("127.0.0.1", 8000, Vector("/feeds/", "?x=1")))
      case other => fail(s"$other")
    val s = plan("--sleep", "0..5ms", "--lease", "9s", "--queue", "q1", "--batch", "50")
    assertEquals(s.handler, JobHandler.Sleep(Delay.Uniform(Duration.Zero, 5.millis)))
    assertEquals(
      (s.queue.lease, s.queue.heartbeat, s.queue.queue, s.queue.claimBatch),
      (9.seconds, 3.seconds, "q1", 50)
    )
  }

  test("--queue several times or as a comma list: one worker, several queues, in the order given") {
    assertEquals(plan("--sleep", "0").queue.queues.toList, List("default"))
    assertEquals(
      plan(
        "--sleep",
        "0",
        "--queue",
        "mail",
        "-q",
        "sms, images",
        "--queue",
        "reports"
      ).queue.queues.toList,
      List("mail", "sms", "images", "reports")
    )
  }

  test("bad --queue input names the option and says what to do") {
    assertEquals(
      errors(worker, "--sleep", "0", "--queue", "mail,,sms"),
      List(
        "--queue: an empty queue name in 'mail,,sms': give names, e.g. --queue mail --queue sms or --queue mail,sms"
      )
    )
    assertEquals(
      errors(worker, "--sleep", "0", "--queue", "mail", "--queue", "sms,mail"),
      List("--queue: 'mail' given more than once: name each queue once")
    )
    assert(errors(worker, "--sleep", "0", "--queue", " ").exists(_.startsWith("--queue: ")))
  }

  test("bad torture input names the option, durations readable") {
    assertEquals(
      errors(torture, "--kills", "-1", "--lease", "100ms"),
      List("--kills must not be negative, got -1", "--lease must be at least 300ms, got 100.0 ms")
    )
    assert(errors(torture, "--work", "soon").exists(_.startsWith("--work: ")))
    assertEquals(errors(torture, "--workers", "2", "--seed", "7"), Nil)
    assertEquals(
      errors(torture, "--cancels", "-2"),
      List("--cancels must not be negative, got -2 (0: no cancels)")
    )
    assert(errors(torture, "--cancels", "many").exists(_.contains("--cancels")))
    assertEquals(
      torture.parse(List("--cancels", "0")).map(_.cancels),
      Right(0)
    )
    assertEquals(torture.parse(Nil).map(_.cancels), Right(5))
  }

  test("bad worker input names the option") {
    assertEquals(
      errors(worker),
      List("no handler: give one of --http URL-TEMPLATE, --exec -- CMD ARG... '{}', --sleep DIST")
    )
    assertEquals(
      errors(worker, "--sleep", "0", "--http", "http://h/{payload}"),
      List("give one handler only: --http, --exec or --sleep")
    )
    assert(errors(worker, "--http", "http://h/x").exists(_.startsWith("--http: ")))
    assert(errors(worker, "--exec", "--", "echo", "hi").exists(_.startsWith("--exec: ")))
    assert(errors(worker, "--sleep", "soon").exists(_.startsWith("--sleep: ")))
    assert(errors(worker, "--sleep", "0", "-c", "0").exists(_.startsWith("--concurrency")))
    assert(
      errors(worker, "--sleep", "0", "--lease", "10ms").contains(
        "--lease must be at least 300ms, got 10.0 ms"
      )
    )
    assert(errors(worker, "--sleep", "0", "--url", "mysql://x").exists(_.startsWith("--url: ")))
    assertEquals(
      errors(worker, "--sleep", "0", "--warm-up", "100"),
      List("--warm-up goes with --http (got --warm-up 100)")
    )
    assertEquals(
      errors(worker, "--http", "http://h/{payload}", "--warm-up", "-1"),
      List("--warm-up must be 0 or more, got -1")
    )
  }

  test(
    "--http warms its client up by default, as weir load does; --warm-up N or 0; no other handler"
  ) {
    assertEquals(plan("--http", "http://h/{payload}").warmUp, WorkerOptions.DefaultWarmUp)
    assertEquals(plan("--http", "http://h/{payload}", "--warm-up", "0").warmUp, 0L)
    assertEquals(plan("--http", "http://h/{payload}", "--warm-up", "300").warmUp, 300L)
    assertEquals(plan("--sleep", "0").warmUp, 0L)
  }

  test("enqueue: --ids A..B, a file or stdin; bad ranges and priorities name their option") {
    assertEquals(
      enqueue.parse(List("--ids", "0..1_000_000")).map(_.input),
      Right(EnqueuePlan.Input.Ids(0, 1000000))
    )
    assertEquals(enqueue.parse(Nil).map(_.input), Right(EnqueuePlan.Input.Lines(None)))
    assert(errors(enqueue, "--ids", "5..1").exists(_.startsWith("--ids: ")))
    assert(errors(enqueue, "--ids", "many").exists(_.startsWith("--ids: ")))
    assert(errors(enqueue, "--priority", "99999").exists(_.startsWith("--priority: ")))
    assert(errors(enqueue, "--max-attempts", "0").exists(_.startsWith("--max-attempts: ")))
    assert(errors(enqueue, "/no/such/file").exists(_.contains("not a readable file")))
  }

  test("enqueue: --kind, --timeout, --unique-key, --unique-for on the template; bad ones named") {
    val template = enqueue
      .parse(
        List("--kind", "report", "--timeout", "1.5s", "--unique-key", "r-42", "--unique-for", "1h")
      )
      .fold(h => fail(h.errors.mkString("; ")), _.template)
    assertEquals(
      (template.kind, template.timeout, template.uniqueKey, template.uniquePeriod),
      ("report", Some(1500.millis), Some("r-42"), Some(1.hour))
    )
    val plain = enqueue.parse(List("--unique-key", "k")).fold(h => fail(h.toString), _.template)
    assertEquals((plain.uniqueKey, plain.uniquePeriod, plain.timeout), (Some("k"), None, None))
    assertEquals(
      errors(enqueue, "--timeout", "0"),
      List("--timeout: the timeout must be positive, got 0")
    )
    assert(errors(enqueue, "--timeout", "soon").exists(_.startsWith("--timeout: 'soon' is not")))
    assertEquals(
      errors(enqueue, "--unique-for", "1h"),
      List(
        "--unique-for needs --unique-key: give the key the period applies to, e.g. --unique-key report-42 --unique-for 1h"
      )
    )
    assert(
      errors(enqueue, "--unique-key", "k", "--unique-for", "0s").exists(
        _.startsWith("--unique-for: ")
      )
    )
    assert(
      errors(enqueue, "--unique-key", " ").exists(_.startsWith("--unique-key must not be empty"))
    )
    assert(errors(enqueue, "--kind", "").exists(_.startsWith("--kind must not be empty")))
  }

  test("weir queue ui: --port and --shared-counts out of range are refused naming the option") {
    val ui = Command("queue", "")(UiCommand.opts)
    assertEquals(errors(ui, "ui", "--shared-counts", "1"), Nil)
    assertEquals(errors(ui, "ui", "--shared-counts", "0"), Nil)
    assertEquals(
      errors(ui, "ui", "--shared-counts", "-1"),
      List(
        "--shared-counts: '-1' is not a number of seconds from 0 to 3600 (e.g. --shared-counts 1; 0 counts at every request)"
      )
    )
    assertEquals(
      errors(ui, "ui", "--port", "70000"),
      List("--port: '70000' is not a port: give a number from 1 to 65535 (e.g. --port 8181)")
    )
  }
