package weir.bench

import cats.effect.IO
import cats.effect.unsafe.implicits.global
import fs2.{Chunk, Stream}
import java.util.concurrent.TimeUnit
import org.openjdk.jmh.annotations.*
import org.openjdk.jmh.infra.Blackhole
import weir.{Concurrency, Limits, Source}
import weir.lab.strategy.Strategies

/** Per-task overhead: tasks per second through each `weir compare` strategy when the tasks cost
  * (almost) nothing, beside plain fs2 and a hand-written java.util.concurrent baseline.
  *
  * One op hands [[TaskOverheadBench.tasks]] integer tasks, made by 2 producers in chunks of 100, to
  * a handler and waits until all are handled; JMH's ops/s is tasks/s (`@OperationsPerInvocation`).
  * Handlers: `noop` returns at once; `cpu` burns `Blackhole.consumeCPU(64)` (~0.1–0.2 µs).
  * `concurrency` is `Limits.concurrency` (queues stay at the default 200). The runtime is
  * cats-effect's global work-stealing pool; tracing off.
  *
  * Subjects beyond `Strategies.all` (the seed's seven from the lab, weir's own from core):
  * `fs2-par-eval-map` and `fs2-par-eval-map-unordered` (the source's concurrent stream straight
  * into the fs2 combinator), and `juc` ([[JucBaseline]]: an ArrayBlockingQueue(200) fed by the
  * benchmark thread, drained by 2 threads; it ignores `concurrency`).
  */
@State(Scope.Benchmark)
@BenchmarkMode(Array(Mode.Throughput))
@OutputTimeUnit(TimeUnit.SECONDS)
@OperationsPerInvocation(TaskOverheadBench.tasks)
@Fork(value = 1, jvmArgsAppend = Array("-Xmx2G", "-Dcats.effect.tracing.mode=none"))
class TaskOverheadBench:

  // Strategies.all by name (annotations need literals), then the baselines.
  @Param(
    Array(
      "batch-io",
      "blocking-queue",
      "stream-queue",
      "stream",
      "prefetch-stream",
      "concurrent-producer-queue",
      "concurrent-producer",
      "unordered",
      "concurrent-producers",
      "worker-pool",
      "work-stealing",
      "weir",
      "fs2-par-eval-map",
      "fs2-par-eval-map-unordered",
      "juc"
    )
  )
  var subject: String = scala.compiletime.uninitialized

  @Param(Array("noop", "cpu"))
  var task: String = scala.compiletime.uninitialized

  @Param(Array("8", "64", "1024"))
  var concurrency: Int = 0

  private var program: IO[Unit] = scala.compiletime.uninitialized
  private var juc: JucBaseline = scala.compiletime.uninitialized

  @Setup
  def setup(): Unit =
    val handler = TaskOverheadBench.handler(task)
    val source = TaskOverheadBench.source
    val limits =
      Concurrency.from(concurrency).map(Limits.default.withConcurrency).fold(throw _, identity)
    program = subject match
      case "juc" =>
        juc = JucBaseline.start(task == "cpu", TaskOverheadBench.cpuTokens)
        IO.unit
      case "fs2-par-eval-map" => source.concurrent.parEvalMap(concurrency)(handler).compile.drain
      case "fs2-par-eval-map-unordered" =>
        source.concurrent.parEvalMapUnordered(concurrency)(handler).compile.drain
      case name =>
        val strategy = Strategies
          .named(name)
          .getOrElse(throw new IllegalArgumentException(s"unknown strategy $name"))
        strategy.run(source, limits)(handler)

  @TearDown
  def tearDown(): Unit = if juc != null then juc.stop()

  @Benchmark
  def run(): Unit =
    if juc != null then juc.runOnce(TaskOverheadBench.tasks)
    else program.unsafeRunSync()

object TaskOverheadBench:
  /** Tasks per op. */
  final val tasks = 20000

  /** `noop` or `cpu` (burns [[cpuTokens]]). */
  def handler(task: String): Int => IO[Unit] = task match
    case "noop" => _ => IO.unit
    case "cpu"  => _ => IO(Blackhole.consumeCPU(cpuTokens))
    case other  => throw new IllegalArgumentException(s"unknown task $other")

  /** [[tasks]] tasks from 2 producers, in chunks of 100. */
  def source: Source[IO, Int] =
    val half = Stream.chunk(Chunk.from(0 until 100)).repeatN((tasks / 2 / 100).toLong).covary[IO]
    Source.partitioned(half, half)

  /** `Blackhole.consumeCPU` tokens a `cpu` task burns. */
  final val cpuTokens = 64L
