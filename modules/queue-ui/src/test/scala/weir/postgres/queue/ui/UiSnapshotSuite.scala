package weir.postgres.queue.ui

import cats.effect.{IO, Ref}
import cats.effect.testkit.TestControl
import cats.syntax.all.*
import munit.CatsEffectSuite
import scala.concurrent.duration.*

/** The overview's shared counts ([[UiSnapshot]]) in virtual time: how many loads the requests
  * cause, which value each request gets, and when it waits.
  */
class UiSnapshotSuite extends CatsEffectSuite:

  // A load that takes 200 ms and answers how many loads had started before it (1, 2, ...).
  private def snapshot(fresh: FiniteDuration, stale: FiniteDuration) =
    Ref.of[IO, Int](0).flatMap { loads =>
      val load = loads.updateAndGet(_ + 1).flatTap(_ => IO.sleep(200.millis))
      UiSnapshot[IO, Int](load, fresh, stale).tupleLeft(loads)
    }

  test(
    "ten requests at once cause one load; within `fresh` no other; past it one per request burst"
  ) {
    val run = snapshot(1.second, 1.minute).flatMap { (loads, s) =>
      for
        first <- List.fill(10)(s.get.map(_._1)).parSequence
        t1 <- IO.monotonic
        again <- s.get.map(_._1) // 200 ms after the load started: fresh
        _ <- IO.sleep(2.seconds)
        stale <- List.fill(10)(s.get.map(_._1)).parSequence // answered at once, one load started
        t2 <- IO.monotonic
        _ <- IO.sleep(300.millis)
        next <- s.get.map(_._1)
        n <- loads.get
      yield (first, t1, again, stale, t2, next, n)
    }
    TestControl.executeEmbed(run).map { (first, t1, again, stale, t2, next, n) =>
      assertEquals(first, List.fill(10)(1))
      assertEquals(t1, 200.millis)
      assertEquals(again, 1)
      assertEquals(stale, List.fill(10)(1))
      assertEquals(t2, 2200.millis)
      assertEquals(next, 2)
      assertEquals(n, 2)
    }
  }

  test("past `stale` a request waits for a new load; invalidate makes the next request wait too") {
    val run = snapshot(1.second, 5.seconds).flatMap { (loads, s) =>
      for
        _ <- s.get
        _ <- IO.sleep(10.seconds)
        old <- s.get.map(_._1) // too old: waits 200 ms for load 2
        t1 <- IO.monotonic
        _ <- s.invalidate
        after <- s.get.map(_._1) // waits for load 3
        t2 <- IO.monotonic
        n <- loads.get
      yield (old, t1, after, t2, n)
    }
    TestControl.executeEmbed(run).map { (old, t1, after, t2, n) =>
      assertEquals(old, 2)
      assertEquals(t1, 10400.millis)
      assertEquals(after, 3)
      assertEquals(t2, 10600.millis)
      assertEquals(n, 3)
    }
  }

  test("a failed load is raised to its waiters and stored nowhere: the next request loads again") {
    val run = Ref.of[IO, Int](0).flatMap { loads =>
      val load = loads.updateAndGet(_ + 1).flatMap { k =>
        if k == 1 then IO.raiseError(new RuntimeException("database down")) else IO.pure(k)
      }
      UiSnapshot[IO, Int](load, 1.second, 1.minute).flatMap { s =>
        (s.get.attempt, s.get.map(_._1), loads.get).tupled
      }
    }
    TestControl.executeEmbed(run).map { (failed, second, n) =>
      assertEquals(failed.left.map(_.getMessage), Left("database down"))
      assertEquals(second, 2)
      assertEquals(n, 2)
    }
  }

  test("with fresh and stale 0 every request loads") {
    val run = snapshot(Duration.Zero, Duration.Zero).flatMap { (loads, s) =>
      s.get >> s.get >> s.get >> loads.get
    }
    TestControl.executeEmbed(run).map(n => assertEquals(n, 3))
  }
