package weir.engine

import munit.ScalaCheckSuite
import org.scalacheck.{Gen, Prop}
import scala.concurrent.duration.*

class LatencyHistogramSuite extends ScalaCheckSuite:

  property("every percentile is within 1/64 of the exact one, and the max is exact") {
    val values = Gen.nonEmptyListOf(Gen.oneOf(Gen.choose(0L, 100L), Gen.choose(0L, 1L << 40)))
    Prop.forAll(values) { vs =>
      val h = LatencyHistogram.create()
      vs.foreach(h.record(_))
      val sorted = vs.sorted.toVector
      def exact(q: Double) = sorted(math.max(1, math.ceil(q * sorted.size).toInt) - 1)
      val p = h.percentiles
      List(0.5 -> p.p50, 0.9 -> p.p90, 0.99 -> p.p99).foreach { (q, got) =>
        val want = exact(q)
        assert(got.toNanos >= want && got.toNanos <= want + want / 64 + 1, s"q=$q $got vs $want")
      }
      assertEquals((p.count, p.max), (vs.size.toLong, sorted.last.nanos))
    }
  }

  test("bucket boundaries: each value lies in its bucket, buckets are ordered") {
    val samples =
      (0L to 5000L) ++ (0 to 62).flatMap(b => Seq((1L << b) - 1, 1L << b, (1L << b) + 1))
    samples.filter(_ >= 0).foreach { v =>
      val i = LatencyHistogram.bucketOf(v)
      assert(i >= 0 && i < LatencyHistogram.Buckets, s"$v -> $i")
      assert(LatencyHistogram.highestIn(i) >= v, s"$v above bucket $i")
      assert(i == 0 || LatencyHistogram.highestIn(i - 1) < v, s"$v below bucket $i")
    }
  }

  property("percentilesSince: exactly the percentiles of what was recorded after the counts") {
    val values = Gen.listOf(Gen.choose(0L, 1L << 30))
    Prop.forAll(values, Gen.nonEmptyListOf(Gen.choose(0L, 1L << 30))) { (before, after) =>
      val h = LatencyHistogram.create()
      before.foreach(h.record(_))
      val mark = h.counts
      after.foreach(h.record(_))
      val alone = LatencyHistogram.create()
      after.foreach(alone.record(_))
      val (since, fresh) = (h.percentilesSince(mark), alone.percentiles)
      assertEquals(since.count, fresh.count)
      // The same buckets; only the clamp differs (the exact maximum is not known for an interval).
      List(since.p50 -> fresh.p50, since.p90 -> fresh.p90, since.p99 -> fresh.p99).foreach {
        (got, want) =>
          val w = want.toNanos
          assert(got.toNanos >= w && got.toNanos <= w + w / 64 + 1, s"$got vs $want")
      }
      // The maximum since is the top of the highest bucket used: within 1/64 of the exact one.
      val max = after.max
      assert(since.max.toNanos >= max && since.max.toNanos <= max + max / 64 + 1, s"$since")
    }
  }

  test("a sample recorded with a weight counts that many times") {
    val h = LatencyHistogram.create()
    h.record(10L, weight = 16) // values below 64 ns have exact buckets
    h.record(50L)
    val p = h.percentiles
    assertEquals((p.count, p.p90, p.max), (17L, 10.nanos, 50.nanos))
    assertEquals(h.percentilesSince(h.counts), Percentiles.empty) // nothing since
  }
