package weir.lab.compare

import munit.ScalaCheckSuite
import org.scalacheck.{Gen, Prop}
import scala.concurrent.duration.*

/** The seed's lane from snapshots: a P per batch, a C per 15 tasks ended, never more than its
  * width.
  */
class LaneSuite extends ScalaCheckSuite:

  test("P for each new batch, then C for each 15 tasks ended") {
    val lane = Lane
      .empty(80)
      .next(Snapshots.at(10.millis, batches = 2, ended = 0, inFlight = 100))
      .next(Snapshots.at(20.millis, batches = 2, ended = 31, inFlight = 100))
      .next(Snapshots.at(30.millis, batches = 3, ended = 45, inFlight = 100))
    assertEquals(lane.shown, "PPCCPC")
  }

  test("a whole run of the seed's size gives its 10 P's and 66 C's") {
    val lane = (1 to 10).foldLeft(Lane.empty(80)) { (l, i) =>
      l.next(Snapshots.at(i.seconds, batches = i.toLong, ended = i * 100L, inFlight = 0))
    }
    assertEquals(lane.shown.count(_ == 'P'), 10)
    assertEquals(lane.shown.count(_ == 'C'), 66)
  }

  property("the lane keeps the latest events only, whatever the counts") {
    val steps = Gen.listOf(Gen.zip(Gen.choose(0L, 50L), Gen.choose(0L, 5000L)))
    Prop.forAll(Gen.choose(1, 90), steps) { (width, deltas) =>
      val (lane, _, _) = deltas.foldLeft((Lane.empty(width), 0L, 0L)) {
        case ((l, b, e), (db, de)) =>
          (l.next(Snapshots.at(1.milli, b + db, e + de, 0)), b + db, e + de)
      }
      val batches = deltas.map(_._1).sum
      val marks = deltas.map(_._2).sum / Lane.consumeMark
      assert(lane.shown.length <= width)
      if batches + marks <= width then assertEquals(lane.shown.length.toLong, batches + marks)
    }
  }
