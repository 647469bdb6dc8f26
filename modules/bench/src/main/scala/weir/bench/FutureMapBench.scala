package weir.bench

import java.util.concurrent.{ExecutorService, Executors, TimeUnit}
import org.openjdk.jmh.annotations.*
import scala.concurrent.{Await, ExecutionContext, Future}
import scala.concurrent.duration.*
import weir.bench.future.{DirectExecutionContext, TrampolineExecutionContext}
import weir.bench.future.FutureSyntax.*

/** Seed 002's FutureMap benchmark: one op is `Future.successful(0)` mapped 100 times with `_ + 1`,
  * awaited, and checked to be 100; µs per op for each way of running the maps.
  *
  *   - direct: [[DirectExecutionContext]] runs each map on the calling thread
  *   - global: `ExecutionContext.global` (a ForkJoinPool)
  *   - single: a single-thread executor
  *   - smart: `smartMap` on global (every future is already complete, so no submission at all)
  *   - trampoline: [[TrampolineExecutionContext]], direct without stack growth
  */
@State(Scope.Benchmark)
@BenchmarkMode(Array(Mode.AverageTime))
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 1, jvmArgsAppend = Array("-Xmx2G", "-Dcats.effect.tracing.mode=none"))
class FutureMapBench:

  private val maps = 100
  private var single: ExecutorService = scala.compiletime.uninitialized
  private var singleContext: ExecutionContext = scala.compiletime.uninitialized

  @Setup
  def setup(): Unit =
    single = Executors.newSingleThreadExecutor()
    singleContext = ExecutionContext.fromExecutorService(single)

  @TearDown
  def tearDown(): Unit = single.shutdownNow().discard

  @Benchmark
  def direct: Int = chain(DirectExecutionContext)

  @Benchmark
  def global: Int = chain(ExecutionContext.global)

  @Benchmark
  def singleThread: Int = chain(singleContext)

  @Benchmark
  def trampoline: Int = chain(TrampolineExecutionContext)

  @Benchmark
  def smart: Int =
    given ExecutionContext = ExecutionContext.global
    var future = Future.successful(0)
    var i = 0
    while i < maps do
      future = future.smartMap(_ + 1)
      i += 1
    check(future)

  private def chain(ec: ExecutionContext): Int =
    var future = Future.successful(0)
    var i = 0
    while i < maps do
      future = future.map(_ + 1)(using ec)
      i += 1
    check(future)

  private def check(future: Future[Int]): Int =
    val result = Await.result(future, 10.seconds)
    require(result == maps, s"expected $maps, got $result")
    result

  extension [A](value: A) private def discard: Unit = ()
