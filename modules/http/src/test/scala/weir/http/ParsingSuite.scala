package weir.http

import munit.FunSuite
import scala.concurrent.duration.*

class ParsingSuite extends FunSuite:

  test("delays") {
    assertEquals(Delay.parse("0..3s"), Right(Delay.Uniform(0.seconds, 3.seconds)))
    assertEquals(Delay.parse("uniform:10ms..200ms"), Right(Delay.Uniform(10.millis, 200.millis)))
    assertEquals(Delay.parse("fixed:100ms"), Right(Delay.Fixed(100.millis)))
    assertEquals(Delay.parse("250"), Right(Delay.Fixed(250.millis)))
    assertEquals(Delay.parse("exp:1.5s"), Right(Delay.Exponential(1500.millis)))
    assert(Delay.parse("3s..1s").isLeft)
    assert(Delay.parse("soon").isLeft)
    assertEquals(Delay.Uniform(0.seconds, 3.seconds).mean, 1500.millis)
  }

  test("delays are deterministic per seed and id, and within range") {
    val d = Delay.Uniform(10.millis, 20.millis)
    val all = (0L until 10000L).map(d.nanosFor(1, _))
    assert(all.forall(n => n >= 10.millis.toNanos && n < 20.millis.toNanos))
    assertEquals(all, (0L until 10000L).map(d.nanosFor(1, _)))
    assertNotEquals(all, (0L until 10000L).map(d.nanosFor(2, _)))
    assertEqualsDouble(all.sum / 1e6 / all.size, 15.0, 0.2)
  }

  test("URL templates") {
    val t = UrlTemplate.parse("http://localhost:8000/items/{id}?copy={id}").toOption.get
    assertEquals(t.target(42), Target("localhost", 8000, "/items/42?copy=42"))
    assert(
      UrlTemplate.parse("http://example.org").toOption.get.target(1) == Target(
        "example.org",
        80,
        "/"
      )
    )
    assertEquals(
      UrlTemplate.parse("https://example.org/{id}").map(_.target(3)),
      Right(Target("example.org", 443, "/3", secure = true))
    )
    assert(
      UrlTemplate
        .parse("ftp://example.org/{id}")
        .left
        .exists(_.getMessage.contains("only http:// and https://"))
    )
    assert(UrlTemplate.parse("localhost:8000/{id}").isLeft)
    assert(UrlTemplate.parse("http://exa mple/{id}").isLeft)
  }

  test("faults: fractions are checked and drawn at about their rate") {
    assert(Faults.of(0.6, 0.6, 0).isLeft)
    assert(Faults.of(-0.1, 0, 0).isLeft)
    val f = Faults.of(0.2, 0.1, 0).fold(e => fail(e.getMessage), identity)
    val counts = (0L until 20000L).groupMapReduce(f.of(3, _))(_ => 1)(_ + _)
    assertEqualsDouble(counts(Faults.Fault.Error) / 20000.0, 0.2, 0.02)
    assertEqualsDouble(counts(Faults.Fault.Drop) / 20000.0, 0.1, 0.02)
  }

  test("the finite-N ideal: fixed delays drain in whole rounds") {
    assertEquals(LittleLaw.finiteIdeal(10, 5, Delay.Fixed(100.millis), 1), 200.millis)
    assertEquals(LittleLaw.finiteIdeal(11, 5, Delay.Fixed(100.millis), 1), 300.millis)
    assertEqualsDouble(LittleLaw.ceiling(5000, 1500.millis), 3333.33, 0.01)
    // Uniform 0..2 s at c = 100: about n * 1 s / 100 plus a drain of nearly the max delay.
    val ideal = LittleLaw.finiteIdeal(100000, 100, Delay.Uniform(0.seconds, 2.seconds), 1).toMillis
    assert(ideal > 1000000 && ideal < 1002500, s"ideal $ideal ms")
  }
