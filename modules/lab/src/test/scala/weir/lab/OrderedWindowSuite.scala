package weir.lab
import weir.Limits
import weir.Source
import weir.strategy.Strategy

import cats.effect.{Async, IO}
import cats.syntax.all.*
import munit.CatsEffectSuite
import scala.concurrent.duration.*
import weir.lab.strategy.PrefetchStream
import weir.lab.workload.Scenario

/** Why the seed strategies use their own ordered window (docs/adr/0002-ordered-window.md): fs2 3's
  * `parEvalMap` holds a slot until the output reaches its task, which on the seed's balanced and
  * slow-consumer scenarios is far slower than the seed measured with fs2 2.5.
  */
class OrderedWindowSuite extends CatsEffectSuite:
  override def munitIOTimeout: Duration = 3.minutes

  /** PrefetchStream as the seed wrote it, on fs2 3's own ordered parEvalMap. */
  private object Fs2PrefetchStream extends Strategy:
    val name = "fs2-3-prefetch-stream"
    val summary = "prefetch + fs2 3 parEvalMap"
    def run[F[_]: Async, A](source: Source[F, A], limits: Limits)(handler: A => F[Unit]): F[Unit] =
      source.sequential.prefetch.parEvalMap(limits.concurrency)(handler).compile.drain

  private def mean(strategy: Strategy, scenario: Scenario): IO[Double] =
    (1L to 10L).toList
      .traverse(VirtualTime.elapsed(strategy, scenario, _))
      .map(ts => ts.map(_.toNanos).sum / 10.0 / 1e9)

  List(Scenario.balanced -> 20.3, Scenario.slowConsumer -> 9.66).foreach { (scenario, fs2Seconds) =>
    test(f"${scenario.name}: fs2 3 parEvalMap takes $fs2Seconds%.2f s, the seed window far less") {
      (mean(Fs2PrefetchStream, scenario), mean(PrefetchStream, scenario)).mapN {
        (fs2, seedWindow) =>
          assert((fs2 - fs2Seconds).abs / fs2Seconds < 0.03, f"fs2 3 parEvalMap: $fs2%.3f s")
          assert(seedWindow < fs2 * 0.8, f"seed window $seedWindow%.3f s vs fs2 3 $fs2%.3f s")
      }
    }
  }
