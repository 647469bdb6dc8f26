package weir.http

import cats.effect.IO
import munit.CatsEffectSuite
import scala.concurrent.duration.*
import weir.{Concurrency, PositiveDuration}

/** The client warm-up on its own ([[WarmUp.on]]), as `weir worker --http` runs it before claiming.
  */
class WarmUpSuite extends CatsEffectSuite:

  test("WarmUp.on: exactly the requests asked for, answered by weir's own server, on given loops") {
    // The warm-up stops launching after WarmUp.MaxTime: a first, unchecked call loads the classes
    // so that the checked one is far inside it.
    EventLoopRuntime.resource(2).use { (group, _) =>
      WarmUp.on[IO](group, 20, Concurrency(5)) >> WarmUp.on[IO](group, 200, Concurrency(20)).map {
        w =>
          assertEquals((w.requests, w.problem), (200L, None))
          assert(w.elapsed > Duration.Zero, w)
      }
    }
  }

  test("WarmUp.on: a concurrency over the warm-up's most is capped, not refused") {
    EventLoopRuntime.resource(1).use { (group, _) =>
      WarmUp
        .on[IO](group, 50, Concurrency(5000))
        .map(w => assertEquals((w.requests, w.problem), (50L, None)))
    }
  }

  test("WarmUp.on with the caller's https:// settings: over TLS on their engine, every request") {
    EventLoopRuntime.resource(1).use { (group, _) =>
      WarmUp
        .on[IO](group, 50, Concurrency(5), Some(ClientTls.default.withEngine(TlsEngine.Jdk)))
        .map(w => assertEquals((w.requests, w.problem), (50L, None)))
    }
  }

  test("WarmUp.rounds: one up to FirstRound requests; above, FirstRound at 100 at most, the rest") {
    val own = WarmUp.OwnServer(2)
    val template = UrlTemplate.parse("http://127.0.0.1:1/{id}").toOption.get
    def load(warm: Long) =
      LoadConfig(LoadConfig.Source.Template(template, None))
        .withConcurrency(Concurrency(300))
        .flatMap(_.withWarmUp(warm))
        .toOption
        .get
    def shape(l: LoadConfig) = (l.source, l.maxConcurrency, l.duration)
    val target = UrlTemplate.loopback(2, secure = false)
    assertEquals(
      WarmUp.rounds(load(500), own).map(shape),
      List((LoadConfig.Source.Template(target, Some(500L)), Concurrency(300), Some(WarmUp.MaxTime)))
    )
    assertEquals(
      WarmUp.rounds(load(20000), own).map(shape),
      List(
        (
          LoadConfig.Source.Template(target, Some(500L)),
          Concurrency(100),
          Some(WarmUp.FirstRoundTime)
        ),
        (
          LoadConfig.Source.Template(target, Some(19500L)),
          Concurrency(300),
          Some(PositiveDuration.seconds(4))
        )
      )
    )
  }
