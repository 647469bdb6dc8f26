package weir.bench

import cats.effect.IO
import cats.effect.unsafe.implicits.global
import java.util.concurrent.TimeUnit
import org.openjdk.jmh.annotations.*
import scala.concurrent.duration.*
import weir.{Attempts, Concurrency, Limits, PositiveDuration}
import weir.engine.{Engine, EngineSettings, RetryPolicy}
import weir.engine.Processing
import weir.strategy.Strategy

/** What the engine costs per task over the bare default strategy (`weir`), with the same source,
  * handlers and limits as [[TaskOverheadBench]] (20 000 tasks per op from 2 producers in chunks of
  * 100; `noop` or `cpu` handlers; tasks/s).
  *
  * Subjects: `strategy` is `Strategy.default.run` alone (the baseline); `processing` is
  * `Processing.run` (the engine without a stop handle); `engine` is `Engine.run` with default
  * settings (statistics and a stop watcher); `engine-timeout` adds a per-task timeout of 10 s that
  * never fires; `engine-retry` adds a retry policy of 3 attempts that is never needed.
  */
@State(Scope.Benchmark)
@BenchmarkMode(Array(Mode.Throughput))
@OutputTimeUnit(TimeUnit.SECONDS)
@OperationsPerInvocation(TaskOverheadBench.tasks)
@Fork(value = 1, jvmArgsAppend = Array("-Xmx2G", "-Dcats.effect.tracing.mode=none"))
class EngineOverheadBench:

  @Param(Array("strategy", "processing", "engine", "engine-timeout", "engine-retry"))
  var subject: String = scala.compiletime.uninitialized

  @Param(Array("noop", "cpu"))
  var task: String = scala.compiletime.uninitialized

  @Param(Array("8", "64", "1024"))
  var concurrency: Int = 0

  private var program: IO[Unit] = scala.compiletime.uninitialized

  @Setup
  def setup(): Unit =
    val handler = TaskOverheadBench.handler(task)
    val source = TaskOverheadBench.source
    val limits =
      Concurrency.from(concurrency).map(Limits.default.withConcurrency).fold(throw _, identity)
    val defaults = EngineSettings.default.withLimits(limits)
    def engine(settings: EngineSettings): IO[Unit] =
      Engine.create[IO](settings).flatMap(_.run(source)(handler)).void
    program = subject match
      case "strategy"       => Strategy.default.run(source, limits)(handler)
      case "processing"     => Processing.run(source, Strategy.default, limits)(handler)
      case "engine"         => engine(defaults)
      case "engine-timeout" => engine(defaults.withTaskTimeout(PositiveDuration.seconds(10)))
      case "engine-retry"   => engine(defaults.withRetry(RetryPolicy.exponential(Attempts(3))))
      case other            => throw new IllegalArgumentException(s"unknown subject $other")

  @Benchmark
  def run(): Unit = program.unsafeRunSync()
