package weir.runtime

import cats.effect.IO
import cats.syntax.all.*
import java.util.concurrent.atomic.AtomicInteger
import munit.CatsEffectSuite
import weir.Concurrency

class BlockingPoolSuite extends CatsEffectSuite:

  private def threadName: String = Thread.currentThread().getName

  test("the blocking call runs on the pool, never on a compute thread, and the caller comes back") {
    BlockingPool.resource[IO](Concurrency(2), "db").use { pool =>
      for
        before <- IO(threadName)
        inside <- pool.run(threadName)
        after <- IO(threadName)
      yield
        assert(before.startsWith("io-compute"), before)
        assert(inside.startsWith("db-"), inside)
        assert(!inside.startsWith("io-compute"), inside)
        assert(after.startsWith("io-compute"), after)
    }
  }

  test("on a fixed runtime the CPU part after the call runs on that runtime's threads") {
    val program = BlockingPool.resource[IO](Concurrency(1)).use { pool =>
      pool.run(threadName).product(IO(threadName))
    }
    RuntimePreset.Fixed(2).run(program).map { (inside, after) =>
      assert(inside.startsWith(s"${BlockingPool.defaultName}-"), inside)
      assert(after.startsWith("weir-fixed-"), after)
    }
  }

  test("at most `threads` calls block at once; the rest wait without a thread") {
    val running = new AtomicInteger
    val peak = new AtomicInteger
    BlockingPool.resource[IO](Concurrency(3)).use { pool =>
      (1 to 24).toList.parTraverse_ { _ =>
        pool.run {
          val now = running.incrementAndGet()
          peak.accumulateAndGet(now, math.max)
          Thread.sleep(5)
          running.decrementAndGet()
        }
      }
    } >> IO(assertEquals(peak.get(), 3))
  }

  test("an exception thrown by the call is raised in IO") {
    val boom = new IllegalStateException("no connection")
    BlockingPool
      .resource[IO](Concurrency(1))
      .use(pool => pool.run[Int](throw boom).attempt)
      .map(r => assertEquals(r, Left(boom)))
  }

  test("a fatal error on the pool's thread is raised as WeirError.Fatal; the thread goes on") {
    val oom = new OutOfMemoryError("thrown by the test")
    BlockingPool.resource[IO](Concurrency(1), "fatal").use { pool =>
      for
        failed <- pool.run[String](throw oom).attempt
        overflow <- pool.run[String](throw new StackOverflowError()).attempt
        next <- pool.run(threadName)
      yield
        assertEquals(failed, Left(weir.WeirError.Fatal(oom)))
        assert(
          failed.left.exists(_.getMessage.startsWith("out of memory (java.lang.OutOfMemoryError"))
        )
        assert(overflow.left.exists(_.getMessage.startsWith("stack overflow")), overflow.toString)
        assertEquals(next, "fatal-0")
    }
  }
