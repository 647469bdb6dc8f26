package weir
import weir.engine.Processing

import cats.effect.IO
import cats.effect.std.Random
import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.atomic.AtomicInteger
import cats.syntax.all.*
import munit.CatsEffectSuite
import org.scalacheck.Gen
import org.scalacheck.rng.Seed
import scala.concurrent.duration.*

/** Every strategy hands every task to the handler exactly once, and never runs more handler calls
  * at once than the limit allows (the seed's batch-io: than the batch), whatever the totals, batch
  * sizes, producer counts and limits.
  */
class ExactlyOnceSuite extends CatsEffectSuite:
  override def munitIOTimeout: Duration = 3.minutes

  /** 25 generated shapes per strategy, the same on every run (seeded). */
  private def cases[A](gen: Gen[A]): List[A] =
    (1L to 25L).toList.map(i => gen.pureApply(Gen.Parameters.default, Seed(i)))

  private val shapes = for
    total <- Gen.choose(1, 400)
    batch <- Gen.choose(1, 60)
    producers <- Gen.choose(1, math.min(6, total))
    concurrency <- Gen.choose(1, 40)
    queue <- Gen.choose(1, 80)
    seed <- Gen.long
  yield (total, batch, producers, concurrency, queue, seed)

  /** The strategies checked; the lab checks the seed's with this same suite. */
  protected def strategies: List[weir.strategy.Strategy] = Fixtures.completing

  /** Whether the batch, not the concurrency limit, bounds `strategy`'s calls in flight. */
  protected def boundedByBatch(strategy: weir.strategy.Strategy): Boolean = false

  strategies.foreach { strategy =>
    test(s"${strategy.name}: every task exactly once, within the concurrency limit") {
      cases(shapes).traverse_ { (total, batch, producers, concurrency, queue, seed) =>
        val seen = new ConcurrentHashMap[Int, AtomicInteger]()
        val active = new AtomicInteger
        val peak = new AtomicInteger
        val limits = Limits.of(concurrency, queue).fold(e => fail(e.getMessage), identity)
        Random.scalaUtilRandomSeedLong[IO](seed).flatMap { random =>
          val handler = (task: Int) =>
            IO(peak.accumulateAndGet(active.incrementAndGet(), math.max)) >>
              random.betweenInt(0, 3).flatMap(us => IO.sleep(us.micros)) >>
              IO(seen.computeIfAbsent(task, _ => new AtomicInteger).incrementAndGet()).void >>
              IO(active.decrementAndGet()).void
          Processing
            .run(Fixtures.source(total, batch, producers), strategy, limits)(handler)
            .timeout(30.seconds)
        } >> IO {
          val counts = (0 until total).map(t => Option(seen.get(t)).fold(0)(_.get))
          assertEquals(
            counts.count(_ != 1),
            0,
            s"tasks not handled exactly once: ${counts.zipWithIndex.filter(_._1 != 1).take(5)}"
          )
          assertEquals(seen.size, total)
          val bound = if boundedByBatch(strategy) then batch else concurrency
          assert(peak.get <= bound, s"peak ${peak.get} handler calls > $bound")
        }
      }
    }
  }
