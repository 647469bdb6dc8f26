package weir.engine

import cats.kernel.Monoid
import munit.FunSuite
import scala.concurrent.duration.*

class TimelineSuite extends FunSuite:

  private given Monoid[Long] with
    def empty: Long = 0L
    def combine(x: Long, y: Long): Long = x + y

  test("a value goes to the interval its time falls in; gaps hold the empty value") {
    val t = Timeline
      .start[Long](1.second, capacity = 8)
      .add(0.millis, 1L)
      .add(999.millis, 2L)
      .add(3.seconds, 5L)
    assertEquals(t.intervals, Vector(3L, 0L, 0L, 5L))
    assertEquals(t.starts.map(_._1), Vector(0.seconds, 1.second, 2.seconds, 3.seconds))
    assertEquals(t.span, 4.seconds)
  }

  test("beyond its capacity it merges neighbours in pairs and doubles the width, keeping sums") {
    val t = (0 until 9).foldLeft(Timeline.start[Long](1.second, capacity = 4)) { (t, i) =>
      t.add(i.seconds, (i + 1).toLong)
    }
    // 1..4 filled the four one-second intervals; 5 widened them to two seconds (3, 7), and so on
    // until 9 (at 8 s) widened them to four seconds.
    assertEquals(t.width, 4.seconds)
    assertEquals(t.intervals, Vector(1L + 2 + 3 + 4, 5L + 6 + 7 + 8, 9L))
    assertEquals(t.intervals.sum, (1L to 9L).sum)
  }

  test("a value far beyond the capacity widens as many times as needed") {
    val t = Timeline.start[Long](1.second, capacity = 4).add(0.seconds, 1L).add(100.seconds, 1L)
    assertEquals(t.width, 32.seconds)
    assertEquals(t.intervals, Vector(1L, 0L, 0L, 1L))
  }

  test("the capacity is even and at least 2; the width at least 1 ms") {
    assertEquals(Timeline.start[Long](1.nano, capacity = 3).capacity, 4)
    assertEquals(Timeline.start[Long](1.nano, capacity = 0).capacity, 2)
    assertEquals(Timeline.start[Long](1.nano).width, 1.milli)
  }
