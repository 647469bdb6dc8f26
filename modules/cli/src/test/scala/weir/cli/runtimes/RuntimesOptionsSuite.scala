package weir.cli.runtimes

import com.monovore.decline.Command
import munit.FunSuite
import weir.cli.Fixtures
import weir.runtime.RuntimePreset
import weir.lab.runtimes.{Burst, ProbeResult, Seed004}

/** `weir runtimes` options to a plan, bad input named by its option; the probe's result line reads
  * back as written.
  */
class RuntimesOptionsSuite extends FunSuite:

  private val command = Command("runtimes", "")(RuntimesOptions.opts)

  private def errors(args: String*): List[String] =
    command.parse(args.toList).fold(_.errors, _ => Nil)

  test("defaults: the seed's sizes, both bursts, a warm-up, three timed bursts") {
    val plan = command.parse(Nil).fold(h => fail(h.errors.mkString), _.plan)
    assertEquals(plan.processes, Seed004.processes)
    assertEquals(plan.bursts, Burst.values.toList)
    assertEquals(plan.runtimes.head, RuntimePreset.WorkStealing)
    assertEquals(
      (plan.cycles, plan.warmUpCalls, plan.rounds),
      (RuntimesPlan.defaultCycles, RuntimesPlan.defaultWarmUpCalls, 3)
    )
  }

  test("--warm-up 0 times right after the cold burst") {
    val plan = command
      .parse(List("--warm-up", "0", "--rounds", "5"))
      .fold(h => fail(h.errors.mkString), _.plan)
    assertEquals((plan.warmUpCalls, plan.rounds), (0L, 5))
  }

  List(
    List("--warm-up", "-1") -> "--warm-up must be 0 or a positive number of calls, got -1",
    List("--rounds", "0") -> "--rounds must be a positive integer, got 0",
    List("--processes", "ten") -> "--processes: 'ten' is not a positive integer",
    List("--burst", "sleepy") -> "--burst: 'sleepy' is not one of: blocking, pure",
    List("--stall-after", "10ms") -> "--stall-after must be at least 100ms, got 10 ms"
  ).foreach { (args, message) =>
    test(s"rejects ${args.mkString(" ")}") {
      assertEquals(errors(args*), List(message))
    }
  }

  test("a probe's result line reads back as it was written") {
    Fixtures.runtimes.cells.map(_.result).foreach { r =>
      assertEquals(ProbeResult.decode(r.encode), Some(r))
    }
  }
