package weir.engine

import cats.effect.IO
import cats.effect.std.Random
import cats.effect.testkit.TestControl
import munit.CatsEffectSuite
import scala.concurrent.duration.*
import weir.{Attempts, ConfigError, NonNegativeDuration}

/** The retry combinator ([[RetryPolicy.retrying]], [[RetryPolicy.recovering]]) under virtual time:
  * exact attempts, delays and hook calls.
  */
class RetryPolicySuite extends CatsEffectSuite:

  private val boom = new RuntimeException("boom")

  /** An attempt that fails `failures` times, then returns how many calls it took. */
  private def flaky(failures: Int): IO[IO[Int]] =
    IO.ref(0)
      .map(calls => calls.updateAndGet(_ + 1).flatMap(n => IO.raiseWhen(n <= failures)(boom).as(n)))

  test("constant: the same delay between attempts, the hook told each failed attempt") {
    val program = for
      random <- Random.scalaUtilRandomSeedLong[IO](1L)
      attempt <- flaky(3)
      hooked <- IO.ref(Vector.empty[(Int, FiniteDuration)])
      hook: RetryPolicy.Hook[IO] = (k, _, d) => hooked.update(_ :+ (k -> d))
      n <- RetryPolicy
        .constant(Attempts(5), NonNegativeDuration.seconds(2))
        .retrying(random, hook)(attempt)
      end <- IO.monotonic
      seen <- hooked.get
    yield (n, end, seen)
    TestControl.executeEmbed(program).map { (n, end, seen) =>
      assertEquals(n, 4)
      assertEquals(end, 6.seconds)
      assertEquals(seen, Vector(1 -> 2.seconds, 2 -> 2.seconds, 3 -> 2.seconds))
    }
  }

  test("attempts run out: the last error, and every attempt made") {
    val program = for
      random <- Random.scalaUtilRandomSeedLong[IO](1L)
      attempt <- flaky(10)
      first <- attempt.attempt
      last <- RetryPolicy
        .constant(Attempts(3), NonNegativeDuration.seconds(1))
        .recovering(
          first.swap.getOrElse(fail("the first attempt succeeded")),
          random,
          RetryPolicy.noHook[IO]
        )(attempt)
      end <- IO.monotonic
    yield (last, end)
    TestControl.executeEmbed(program).map { (last, end) =>
      assertEquals(last, (Left(boom), 3))
      assertEquals(end, 2.seconds)
    }
  }

  test("a cap on the total delay gives up before the delay that would pass it") {
    val capped =
      RetryPolicy
        .constant(Attempts(100), NonNegativeDuration.seconds(3))
        .withMaxTotalDelay((NonNegativeDuration.seconds(10)))
    val program = for
      random <- Random.scalaUtilRandomSeedLong[IO](1L)
      attempt <- flaky(100)
      result <- capped.retrying(random)(attempt).attempt
      end <- IO.monotonic
    yield (result, end)
    TestControl.executeEmbed(program).map { (result, end) =>
      assertEquals(result, Left(boom))
      assertEquals(end, 9.seconds) // three delays of 3 s; a fourth would make 12 s
    }
  }

  test("exponential with full jitter: each delay within its ceiling; unlimited until success") {
    val p = RetryPolicy
      .exponential(Attempts(1), NonNegativeDuration.seconds(1), NonNegativeDuration.seconds(8))
      .unlimited
    val program = for
      random <- Random.scalaUtilRandomSeedLong[IO](7L)
      attempt <- flaky(6)
      delays <- IO.ref(Vector.empty[(Int, FiniteDuration)])
      n <- p.retrying(random, (k, _, d) => delays.update(_ :+ (k -> d)))(attempt)
      seen <- delays.get
      end <- IO.monotonic
    yield (n, seen, end)
    TestControl.executeEmbed(program).map { (n, seen, end) =>
      assertEquals(n, 7)
      assertEquals(seen.map(_._1), Vector(1, 2, 3, 4, 5, 6))
      seen.foreach((k, d) => assert(d >= Duration.Zero && d <= p.ceiling(k), s"$k: $d"))
      assertEquals(p.ceiling(6), 8.seconds)
      assertEquals(end, seen.map(_._2).reduce(_ + _))
    }
  }

  test("an error the policy does not retry is raised at once, with no delay") {
    val p =
      RetryPolicy.constant(Attempts(5), NonNegativeDuration.seconds(1)).withRetryable(_ => false)
    val program = for
      random <- Random.scalaUtilRandomSeedLong[IO](1L)
      attempt <- flaky(1)
      result <- p.retrying(random)(attempt).attempt
      end <- IO.monotonic
    yield (result, end)
    TestControl.executeEmbed(program).map(r => assertEquals(r, (Left(boom), Duration.Zero)))
  }

  test("schedules are validated: a negative total delay is refused") {
    assertEquals(Attempts.from(0), Left(ConfigError.NotPositive("attempts", "0")))
    assertEquals(
      NonNegativeDuration.from(-1.second).map(_.toSeconds),
      Left(ConfigError.Negative("duration", "-1.00 s"))
    )
  }
