package weir

import munit.FunSuite
import scala.concurrent.duration.*
import weir.stream.Prefetch

/** The validated configuration types: `from` refuses what the type cannot hold with a
  * [[ConfigError]] that names the setting; the literal constructors are checked at compile time.
  */
class ConfigTypesSuite extends FunSuite:

  test("from: a value the type cannot hold is a ConfigError with a clear message") {
    val refused = List(
      Concurrency.from(0),
      Capacity.from(-3, "queue capacity"),
      Attempts.from(0),
      PositiveDuration.from(Duration.Zero, "task timeout"),
      NonNegativeDuration.from(-2.seconds, "grace period"),
      Prefetch.Depth.from(-1),
      Limits.of(4, 0)
    ).map(_.left.map(_.getMessage))
    assertEquals(
      refused,
      List(
        Left("concurrency must be positive, got 0"),
        Left("queue capacity must be positive, got -3"),
        Left("attempts must be positive, got 0"),
        Left("task timeout must be positive, got 0"),
        Left("grace period must not be negative, got -2.00 s"),
        Left("prefetch must not be negative, got -1"),
        Left("queue capacity must be positive, got 0")
      )
    )
  }

  test("from: a value the type holds comes back as it was") {
    assertEquals(Concurrency.from(64).map(n => n: Int), Right(64))
    assertEquals(PositiveDuration.from(5.seconds).map(d => d: FiniteDuration), Right(5.seconds))
    assertEquals(
      NonNegativeDuration.from(Duration.Zero).map(d => d: FiniteDuration),
      Right(Duration.Zero)
    )
    assertEquals(Prefetch.Depth.from(0).map(n => n: Int), Right(0))
  }

  test("literals: checked at compile time, usable as the plain value") {
    val c: Int = Concurrency(64)
    val d: FiniteDuration = PositiveDuration.millis(250)
    assertEquals((c, d, Capacity(200): Int, Attempts(3): Int), (64, 250.millis, 200, 3))
    assertEquals(NonNegativeDuration.hours(1): FiniteDuration, 1.hour)
    assertEquals(
      Limits(Concurrency(8), Capacity(16)).withConcurrency(Concurrency(2)).concurrency: Int,
      2
    )
  }

  test("literals: an invalid or non-constant literal does not compile") {
    val zero = compileErrors("Concurrency(0)")
    assert(zero.contains("concurrency must be positive, got 0"), zero)
    val negative = compileErrors("NonNegativeDuration.seconds(-1)")
    assert(negative.contains("must not be negative"), negative)
    assert(compileErrors("Attempts(0)").contains("attempts must be at least 1"))
    assert(compileErrors("{ val n = 5; Capacity(n) }").nonEmpty)
  }

  test("ConfigError: one type, a case per kind of mistake, each naming its setting") {
    val errors: List[ConfigError] = List(
      ConfigError.NotPositive("concurrency", "0"),
      ConfigError.Negative("grace period", "-1"),
      ConfigError.OutOfRange("port", "70000", "0..65535"),
      ConfigError.Invalid("heartbeat", "(10 s) must be shorter than the lease (5 s)")
    )
    assertEquals(errors.map(_.setting), List("concurrency", "grace period", "port", "heartbeat"))
    assertEquals(
      errors.map(_.getMessage),
      List(
        "concurrency must be positive, got 0",
        "grace period must not be negative, got -1",
        "port must be in 0..65535, got 70000",
        "heartbeat (10 s) must be shorter than the lease (5 s)"
      )
    )
  }
