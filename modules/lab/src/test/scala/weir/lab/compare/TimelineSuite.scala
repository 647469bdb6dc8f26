package weir.lab.compare

import munit.ScalaCheckSuite
import org.scalacheck.{Gen, Prop}
import scala.concurrent.duration.*

/** A run's timeline: every count in exactly one interval, in constant memory however long the run.
  */
class TimelineSuite extends ScalaCheckSuite:

  test("new counts go to the interval their snapshot falls in") {
    val t = Timeline
      .start(10.millis)
      .record(Snapshots.at(5.millis, batches = 1, ended = 0, inFlight = 40))
      .record(Snapshots.at(12.millis, batches = 1, ended = 10, inFlight = 90))
      .record(Snapshots.at(31.millis, batches = 2, ended = 100, inFlight = 0))
    assertEquals(
      t.buckets,
      Vector(
        Timeline.Bucket(batches = 1, started = 40, ended = 0, inFlight = 40),
        Timeline.Bucket(batches = 0, started = 60, ended = 10, inFlight = 90),
        Timeline.Bucket.zero,
        Timeline.Bucket(batches = 1, started = 0, ended = 90, inFlight = 0)
      )
    )
  }

  test("a run longer than the capacity merges intervals in pairs and doubles the interval") {
    val t = (1 to 9).foldLeft(Timeline.start(1.milli, capacity = 4)) { (t, i) =>
      t.record(
        Snapshots.at((i - 1).millis, batches = i.toLong, ended = i * 10L, inFlight = i.toLong)
      )
    }
    assertEquals(t.interval, 4.millis)
    assertEquals(t.buckets.map(_.batches), Vector(4L, 4L, 1L))
    assertEquals(t.buckets.map(_.inFlight), Vector(4L, 8L, 9L))
  }

  property("the intervals add up to the last snapshot and never exceed the capacity") {
    // Each step: time passes, batches are taken, tasks start, and some of those in flight end.
    val step =
      Gen.zip(Gen.choose(0L, 400L), Gen.choose(0L, 3L), Gen.choose(0L, 150L), Gen.choose(0.0, 1.0))
    Prop.forAll(Gen.choose(2, 40), Gen.listOf(step)) { (capacity, steps) =>
      val (t, _, batches, started, ended) =
        steps.foldLeft((Timeline.start(1.milli, capacity), 0L, 0L, 0L, 0L)) {
          case ((t, at, b, s, e), (dt, db, ds, share)) =>
            val ends = e + ((s + ds - e) * share).toLong
            val snapshot = Snapshots.at((at + dt).millis, b + db, ends, s + ds - ends)
            (t.record(snapshot), at + dt, b + db, s + ds, ends)
        }
      assert(t.buckets.size <= capacity + capacity % 2)
      assertEquals(t.batches, batches)
      assertEquals(t.ended, ended)
      assertEquals(t.buckets.map(_.started).sum, started)
    }
  }
