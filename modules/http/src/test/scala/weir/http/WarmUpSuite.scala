package weir.http

import cats.effect.IO
import munit.CatsEffectSuite
import scala.concurrent.duration.*
import weir.Concurrency

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
