package weir.postgres.queue

import cats.effect.IO
import cats.syntax.all.*
import munit.CatsEffectSuite

/** The fan-out of a worker's events ([[Events]]): each subscriber gets what its filter accepts, in
  * order; a full buffer drops for that subscriber alone and says how many as one
  * [[WorkerEvent.Lagged]]; publishing never waits, and costs nothing to build with nobody
  * subscribed.
  */
class EventsSuite extends CatsEffectSuite:

  private def lost(role: Int): WorkerEvent = WorkerEvent.ConnectionLost(role.toString)

  test("with nobody subscribed, an event is never even built") {
    val events = new Events[IO]
    var built = 0
    events.publish { built += 1; lost(0) }.replicateA_(100).map(_ => assertEquals(built, 0))
  }

  test("each subscriber gets what its filter accepts, in order; a full buffer drops and says so") {
    val events = new Events[IO]
    (
      events.subscribe(100, _ => true),
      events.subscribe(3, _ => true),
      events.subscribe(
        100,
        {
          case WorkerEvent.ConnectionLost(r) => r.toInt % 2 == 0
          case _                             => false
        }
      )
    ).tupled
      .use { (all, small, even) =>
        (1 to 10).toList.traverse_(i => events.publish(lost(i))) >>
          (
            all.take(10).compile.toVector,
            small.take(4).compile.toVector,
            even.take(5).compile.toVector
          ).tupled
      }
      .map { (a, s, e) =>
        assertEquals(a, (1 to 10).toVector.map(lost))
        assertEquals(s, Vector(WorkerEvent.Lagged(7), lost(1), lost(2), lost(3)))
        assertEquals(e, Vector(2, 4, 6, 8, 10).map(lost))
      }
  }

  test(
    "a listener is called inline on what its filter accepts, loses nothing, and an error it throws is dropped"
  ) {
    val events = new Events[IO]
    val seen = new java.util.concurrent.atomic.AtomicInteger
    val even: WorkerEvent => Boolean = {
      case WorkerEvent.ConnectionLost(r) => r.toInt % 2 == 0
      case _                             => false
    }
    (
      events.listen(even, _ => seen.incrementAndGet(): Unit),
      events.listen(_ => true, _ => sys.error("boom"))
    ).tupled
      .use(_ => (1 to 10000).toList.traverse_(i => events.publish(lost(i))))
      .flatMap(_ => events.publish(lost(2))) // after release: not called
      .map(_ => assertEquals(seen.get, 5000))
  }
