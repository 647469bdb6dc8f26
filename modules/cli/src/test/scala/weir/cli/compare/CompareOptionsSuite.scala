package weir.cli.compare

import weir.cli.Main
import cats.effect.ExitCode
import com.monovore.decline.Command
import munit.CatsEffectSuite
import scala.concurrent.duration.*
import weir.cli.compare.CompareOptions
import weir.runtime.RuntimePreset

/** `weir compare` options: good input becomes the intended plan; bad input names the option and
  * what it accepts, and the command exits with 2.
  */
class CompareOptionsSuite extends CatsEffectSuite:

  private val command = Command("compare", "")(CompareOptions.opts)

  private def errors(args: String*): List[String] =
    command.parse(args.toList).fold(_.errors, _ => Nil)

  private def plan(args: String*) =
    command.parse(args.toList).fold(help => fail(help.errors.mkString("; ")), _.plan)

  test("defaults: the seed's three scenarios, every completing strategy, fixed:2, scale 0.1") {
    val p = plan()
    assertEquals(p.scenarios.map(_.name), List("slow-producer", "balanced", "slow-consumer"))
    assertEquals(p.strategies, weir.lab.strategy.Strategies.all)
    assertEquals(p.runtime, RuntimePreset.Fixed(2))
    assertEquals(p.scale, 0.1)
    assertEquals(p.limits, weir.Limits.default)
  }

  test("a custom scenario with overrides") {
    val p = plan(
      "--scenario",
      "custom",
      "--produce-delay",
      "250ms",
      "--consume",
      "5ms..1.5s",
      "--total",
      "300",
      "--batch",
      "30",
      "--producers",
      "3",
      "--concurrency",
      "16",
      "--queue",
      "64",
      "--full",
      "--runtime",
      "wsp"
    )
    val s = p.scenarios.head
    assertEquals(
      (s.name, s.produceDelay, s.consumeMin, s.consumeMax),
      ("custom", 250.millis, 5.millis, 1500.millis)
    )
    assertEquals((s.total, s.batchSize, s.producers), (300, 30, 3))
    assertEquals(
      (p.limits.concurrency, p.limits.queueCapacity, p.scale, p.runtime),
      (16, 64, 1.0, RuntimePreset.WorkStealing)
    )
  }

  private val bad: List[(List[String], String)] = List(
    List("--strategy", "fastest") -> "--strategy: 'fastest' is not one of:",
    List("--scenario", "rush-hour") -> "--scenario: 'rush-hour' is not one of:",
    List("--scenario", "custom") -> "--scenario custom needs both --produce-delay and --consume",
    List(
      "--scenario",
      "custom",
      "--produce-delay",
      "1s",
      "--consume",
      "2s..1s"
    ) -> "--consume: the minimum (2s) must not exceed the maximum (1s)",
    List("--consume", "fast") -> "--consume: 'fast' is not a range",
    List("--produce-delay", "soon") -> "--produce-delay: 'soon' is not a duration",
    List("--total", "0") -> "--total must be a positive integer, got 0",
    List("--batch", "-5") -> "--batch must be a positive integer, got -5",
    List("--concurrency", "0") -> "--concurrency must be a positive integer, got 0",
    List("--repetitions", "0") -> "--repetitions must be a positive integer, got 0",
    List("--scale", "0") -> "--scale must be in (0, 100], got 0.0",
    List(
      "--runtime",
      "turbo"
    ) -> "--runtime: runtime 'turbo' is not one of: wsp | fixed:N (N >= 1) | virtual",
    List(
      "--runtime",
      "fixed:0"
    ) -> "--runtime: runtime 'fixed:0': the thread count after 'fixed:' must be a positive integer",
    List("--format", "xml") -> "--format: 'xml' is not one of: text | markdown | csv | json | html",
    List("--producers", "2000") -> "producers (2000) must not exceed total (1000)"
  )

  bad.foreach { (args, message) =>
    test(s"rejects ${args.mkString(" ")}") {
      val found = errors(args*)
      assert(
        found.exists(_.contains(message)),
        s"expected an error containing '$message', got $found"
      )
    }
  }

  test("weir exits with 2 on bad input and runs nothing") {
    Main.run(List("compare", "--strategy", "fastest")).map(code => assertEquals(code, ExitCode(2)))
  }

  test("weir compare runs a tiny comparison end to end and exits 0") {
    Main
      .run(
        List(
          "compare",
          "--scenario",
          "slow-consumer",
          "--strategy",
          "weir,stream",
          "--scale",
          "0.01",
          "--format",
          "json",
          "--no-live",
          "--runtime",
          "fixed:4"
        )
      )
      .map(code => assertEquals(code, ExitCode(0)))
  }

  test("a deadlocking run is reported and the exit code is 1") {
    Main
      .run(
        List(
          "compare",
          "--scenario",
          "slow-consumer",
          "--strategy",
          "real-blocking-queue",
          "--scale",
          "0.01",
          "--no-live"
        )
      )
      .map(code => assertEquals(code, ExitCode(1)))
  }
