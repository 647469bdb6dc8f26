package weir.engine

import munit.ScalaCheckSuite
import org.scalacheck.{Gen, Prop}
import scala.concurrent.duration.*

class LatencyHistogramSuite extends ScalaCheckSuite:

  property("every percentile is within 1/64 of the exact one, and the max is exact") {
    val values = Gen.nonEmptyListOf(Gen.oneOf(Gen.choose(0L, 100L), Gen.choose(0L, 1L << 40)))
    Prop.forAll(values) { vs =>
      val h = LatencyHistogram.create()
      vs.foreach(h.record)
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
