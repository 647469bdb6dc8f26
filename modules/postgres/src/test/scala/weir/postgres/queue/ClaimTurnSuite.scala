package weir.postgres.queue

import java.time.Instant
import munit.FunSuite
import scala.concurrent.duration.*

/** [[ClaimTurn]]: queues served in turn, a dry queue skipped until the poll interval has passed, a
  * notification or a wake-up; one queue is the single-queue claim loop.
  */
class ClaimTurnSuite extends FunSuite:

  private val poll = 1.second
  private def job(id: Long, queue: String) =
    Job(id, queue, "p", 0, Instant.EPOCH, 1, 25, "default")

  private val abc = ClaimTurn.start(Vector("a", "b", "c"), poll)

  test("queues that have jobs are served in turn, a claim each") {
    val t0 = 0.seconds
    val picks = (1 to 6)
      .scanLeft((abc, Option.empty[Int])) { case ((t, _), k) =>
        val i = t.pick(t0).get
        (t.claimed(i, None, Vector(job(k.toLong, t.queues(i))), t0, t0), Some(i))
      }
      .flatMap(_._2)
    assertEquals(picks.toList, List(0, 1, 2, 0, 1, 2))
  }

  test("a queue found empty is skipped until the poll interval has passed") {
    val t = abc.claimed(1, None, Vector.empty, 0.seconds, 0.seconds) // b dry at 0
    val afterA = t.claimed(0, None, Vector(job(1, "a")), 0.seconds, 0.seconds)
    assertEquals(afterA.pick(500.millis), Some(2)) // b's turn, but dry: c
    val afterC = afterA.claimed(2, None, Vector(job(2, "c")), 500.millis, 500.millis)
    assertEquals(afterC.pick(600.millis), Some(0)) // b still dry
    assertEquals(
      afterC.claimed(0, None, Vector(job(3, "a")), 0.seconds, 0.seconds).pick(1.second),
      Some(1)
    )
  }

  test("every queue dry: nothing to pick until woken, notified or the poll interval") {
    val dry =
      (0 to 2).foldLeft(abc)((t, i) => t.claimed(i, None, Vector.empty, 0.seconds, 0.seconds))
    assertEquals(dry.pick(999.millis), None)
    assertEquals(dry.woken.pick(0.seconds), Some(0))
    assertEquals(dry.notified(Set("c", "elsewhere")).pick(0.seconds), Some(2))
    assertEquals(dry.pick(1.second), Some(0))
  }

  test("one queue: claimed while it has jobs, idle after an empty claim, its cursor advanced") {
    val one = ClaimTurn.start(Vector("q"), poll)
    val busy = one.claimed(0, None, Vector(job(7, "q")), 0.seconds, 0.seconds)
    assertEquals(busy.pick(0.seconds), Some(0))
    assertEquals(busy.cursor(0).after(0.seconds).map(_.id), Some(7L))
    val idle = busy.claimed(0, None, Vector.empty, 0.seconds, 0.seconds)
    assertEquals(idle.pick(0.seconds), None)
    assertEquals(idle.cursor(0).after(0.seconds), None)
    assertEquals(idle.woken.pick(0.seconds), Some(0))
  }
