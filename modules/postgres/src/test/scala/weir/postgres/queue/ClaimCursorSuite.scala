package weir.postgres.queue

import java.time.Instant
import munit.FunSuite
import scala.concurrent.duration.*

/** Where a worker's next claim starts ([[ClaimCursor]]): after its last claim while that is younger
  * than the restart period, from the beginning otherwise or after a claim that found nothing.
  */
class ClaimCursorSuite extends FunSuite:

  private def job(id: Long, priority: Int = 0) =
    Job(id, "q", id.toString, priority, Instant.parse("2026-01-01T00:00:00Z"), 1, 25)

  private val fresh = ClaimCursor.start(1.second)

  test("a new cursor starts from the beginning") {
    assertEquals(fresh.after(5.seconds), None)
  }

  test("a claim from the beginning moves the cursor to its last job and restarts its clock") {
    val c = fresh.advanced(None, Vector(job(1), job(2), job(3)), 10.seconds)
    assertEquals(c.after(10.seconds), Some(Claimer.Position.of(job(3))))
    assertEquals(c.after(10.seconds + 999.millis), Some(Claimer.Position.of(job(3))))
    assertEquals(c.after(11.seconds), None)
  }

  test("a claim after the cursor moves it on but keeps its clock: the restart comes on time") {
    val started = fresh.advanced(None, Vector(job(1)), 10.seconds)
    val on = started.advanced(started.after(10.5.seconds), Vector(job(7), job(9)), 10.5.seconds)
    assertEquals(on.after(10.9.seconds), Some(Claimer.Position.of(job(9))))
    assertEquals(on.after(11.seconds), None)
  }

  test("a claim that found nothing sends the cursor back to the beginning") {
    val started = fresh.advanced(None, Vector(job(1)), 10.seconds)
    assertEquals(
      started.advanced(started.after(10.1.seconds), Vector.empty, 10.1.seconds).after(10.2.seconds),
      None
    )
  }
