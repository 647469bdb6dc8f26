package weir.postgres.queue

import cats.effect.{IO, Ref}
import cats.syntax.all.*
import cats.effect.std.Random
import cats.effect.testkit.TestControl
import munit.CatsEffectSuite
import scala.concurrent.duration.*
import weir.engine.RetryPolicy
import weir.{Attempts, NonNegativeDuration}

/** Backoff times under `TestControl` (virtual time): each try starts exactly when the full-jitter
  * delays of the failures before it say, and the ceilings double up to the maximum.
  */
class BackoffSuite extends CatsEffectSuite:

  private val policy = RetryPolicy.exponential(
    Attempts(2),
    NonNegativeDuration.millis(100),
    NonNegativeDuration.seconds(1)
  )

  private case class Lost() extends java.sql.SQLException("gone", "08006")

  test(
    "retrying: every try starts exactly after the drawn delays, and stops at the first success"
  ) {
    val program =
      for
        tries <- Ref.of[IO, Vector[FiniteDuration]](Vector.empty)
        random <- Random.scalaUtilRandomSeedLong[IO](42L)
        result <- Backoff.retrying(policy, random, QueueDb.lost)(
          IO.monotonic.flatMap(now => tries.update(_ :+ now)) >>
            tries.get.flatMap(t => if t.size < 6 then IO.raiseError(Lost()) else IO.pure("done"))
        )
        seen <- tries.get
      yield (result, seen)
    val expected =
      Random.scalaUtilRandomSeedLong[IO](42L).flatMap { random =>
        (1 to 5).toList
          .traverse(k => random.nextDouble.map(policy.delay(k, _)))
          .map(_.scanLeft(Duration.Zero: FiniteDuration)(_ + _).toVector)
      }
    for
      got <- TestControl.executeEmbed(program)
      want <- expected
      (result, seen) = got
    yield
      assertEquals(result, "done")
      assertEquals(seen, want)
      assert(want.zip(want.tail).forall((a, b) => b >= a))
  }

  test("retrying: an error that is not a lost connection is raised at once, without waiting") {
    val program = Random.scalaUtilRandomSeedLong[IO](1L).flatMap { random =>
      Backoff
        .retrying(policy, random, QueueDb.lost)(
          IO.raiseError[Unit](new IllegalStateException("bad"))
        )
        .attempt
        .product(IO.monotonic)
    }
    TestControl.executeEmbed(program).map { case (result, at) =>
      assertEquals(result.left.map(_.getMessage), Left("bad"))
      assertEquals(at, Duration.Zero)
    }
  }

  test(
    "the ceilings double from the initial delay up to the maximum; a draw of u gives u x ceiling"
  ) {
    assertEquals(
      (1 to 6).map(policy.ceiling).toVector,
      Vector(100.millis, 200.millis, 400.millis, 800.millis, 1.second, 1.second)
    )
    assertEquals(policy.delay(3, 0.5), 200.millis)
  }
