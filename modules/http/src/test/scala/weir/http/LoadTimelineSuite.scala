package weir.http

import cats.effect.IO
import cats.effect.testkit.TestControl
import munit.CatsEffectSuite
import scala.concurrent.duration.*

/** The timeline of a load: intervals back to back, counts exact, bounded however long the load. */
class LoadTimelineSuite extends CatsEffectSuite:

  private def answered(r: LoadRecorder, n: Int, status: Int = 200, latency: Long = 1000000L) =
    (0 until n).foreach(_ => r.answered(status, latency))

  test("each interval counts what finished in it, errors by class and 4xx/5xx answers") {
    val r = new LoadRecorder
    val t = new LoadTimeline(r, 10.seconds, 1.second)
    answered(r, 5)
    r.failed(ErrorClass.Timeout, "slow"): Unit
    t.close(11.seconds)
    answered(r, 3, status = 503, latency = 4000000L)
    r.started()
    t.close(12.seconds)
    t.close(12.seconds) // nothing new: no empty interval
    val List(first, second) = t.intervalsSoFar.toList: @unchecked
    assertEquals((first.start, first.length), (0.seconds, 1.second))
    assertEquals((first.finished, first.answered, first.errors), (6L, 5L, Map("timeout" -> 1L)))
    assertEquals((second.start, second.finished, second.inFlight), (1.second, 3L, 1L))
    assertEquals(second.errors, Map(LoadRecorder.ErrorStatus -> 3L))
    assertEquals(second.p50 / 1000000, 4L)
  }

  test("a tick that comes late: its interval is longer, the next starts where it ended") {
    val r = new LoadRecorder
    val t = new LoadTimeline(r, 10.seconds, 1.second)
    answered(r, 2)
    t.close(11.seconds + 70.millis) // the first tick, 70 ms late (a busy machine)
    answered(r, 1)
    t.close(12.seconds) // the second, on time
    val List(first, second) = t.intervalsSoFar.toList: @unchecked
    assertEquals((first.start, first.length, first.finished), (0.seconds, 1070.millis, 2L))
    assertEquals((second.start, second.length, second.finished), (1070.millis, 930.millis, 1L))
  }

  test("under TestControl: closed every second, bounded, widened by merging in pairs") {
    val max = LoadTimeline.MaxIntervals
    val program = for
      start <- IO.monotonic
      r = new LoadRecorder
      t = new LoadTimeline(r, start, 1.second)
      // One answer per second, for max + 10 seconds.
      feeder = (IO.sleep(500.millis) >> IO(r.answered(200, 1000L)) >> IO.sleep(500.millis)).foreverM
      // Half a second past the last interval's end: an end and the timeout at one instant would
      // come in either order (TestControl orders such tasks by a random seed).
      ticks = fs2.Stream.fixedRate[IO](1.second).evalMap(_ => IO.monotonic.map(t.close))
      _ <- IO.both(ticks.compile.drain, feeder).timeoutTo((max + 10).seconds + 500.millis, IO.unit)
    yield t.intervalsSoFar
    TestControl.executeEmbed(program).map { intervals =>
      // After `max` seconds the first `max` intervals became max / 2 of two seconds; ten seconds
      // later five more two-second intervals were closed.
      assertEquals(intervals.size, max / 2 + 5)
      assert(intervals.forall(_.length == 2.seconds), intervals.map(_.length).distinct)
      assertEquals(intervals.map(_.finished).sum, (max + 10).toLong)
      intervals.sliding(2).foreach(p => assertEquals(p(0).start + p(0).length, p(1).start))
    }
  }
