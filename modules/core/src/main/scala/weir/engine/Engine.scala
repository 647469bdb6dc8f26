package weir.engine

import cats.effect.kernel.{Async, Deferred, Ref}
import cats.effect.std.Random
import cats.effect.syntax.all.*
import cats.syntax.all.*
import fs2.Stream
import fs2.concurrent.Channel
import java.util.concurrent.atomic.AtomicLong
import scala.concurrent.duration.*
import weir.{Source, WeirError}

/** weir's one engine: runs a handler over every task of a [[weir.Source]] with a
  * [[weir.strategy.Strategy]], under one [[EngineSettings]] value (concurrency, queue capacity,
  * rate, per-task timeout, retries, error policy, graceful stop), and keeps live statistics.
  *
  * An engine is made for one run: [[run]] or [[results]] once; its statistics are that run's.
  *
  * '''Concurrency.''' At most `concurrency` tasks are in flight and at most about `queueCapacity`
  * are buffered, as the strategy bounds them; the source is read no further ahead. Retries and
  * backoff waits happen inside the task's slot, so a retried task keeps its place in the bound.
  *
  * '''Errors.''' A failed attempt is retried while the [[RetryPolicy]] allows. A task that fails
  * for good under [[ErrorPolicy.FailFast]] stops the run: no further task starts, tasks in flight
  * are cancelled, and the run fails with [[weir.WeirError.TaskFailed]] naming the task (unordered
  * results that ended before it are emitted first). Under [[ErrorPolicy.Skip]] it becomes a result
  * and a count, and the run goes on. An error raised by the source fails the run the same way.
  *
  * '''Stopping.''' [[stop]] stops taking tasks from the source; tasks already taken but not started
  * end as [[TaskOutcome.NotStarted]]; tasks in flight get [[EngineSettings.stopGrace]] to finish,
  * then are cancelled and counted as `cancelled` in the statistics (they have no result), and tasks
  * still in the strategy's buffers count as `not-started`. The run then completes normally.
  * '''Cancelling''' the run (or no longer pulling its results) cancels every task in flight and
  * returns once they have stopped; no fiber outlives it.
  */
final class Engine[F[_]] private (
    val settings: EngineSettings,
    stats: EngineStats,
    stopRequested: Deferred[F, Unit],
    bucket: Option[TokenBucket[F]],
    random: Random[F],
    start: FiniteDuration
)(using F: Async[F]):
  // Read on every task: a volatile flag is cheaper than `Deferred.tryGet`.
  @volatile private var stopping = false
  // The plain form's timing mode (see `plain`): on until a task turns out fast. Racy updates are
  // harmless; it is a heuristic, and the weights keep the percentiles unbiased either way.
  @volatile private var timeAll = true

  /** Stops the run gracefully (see [[Engine]]); idempotent, returns at once. */
  def stop: F[Unit] = F.delay { stopping = true } >> stopRequested.complete(()).void

  /** The statistics now, with the rate and recent latencies since the start. */
  def snapshot: F[Snapshot] = F.monotonic.map { now =>
    val elapsed = now - start
    val seconds = elapsed.toNanos / 1e9
    stats.snapshot(elapsed, if seconds > 0 then stats.ended / seconds else 0.0, None)
  }

  /** A snapshot every `every` (a fixed rate, the first after `every`), each with the rate and the
    * recent latencies since the one before. Runs until the caller stops pulling; any number of
    * callers may pull their own at once.
    */
  def snapshots(every: FiniteDuration): Stream[F, Snapshot] =
    Stream.eval(F.monotonic.map(now => (now, stats.ended, stats.latencyCounts))).flatMap { first =>
      Stream
        .fixedRate[F](every)
        .evalMapAccumulate(first) { case ((before, endedBefore, countsBefore), _) =>
          F.monotonic.map { now =>
            val ended = stats.ended
            val counts = stats.latencyCounts
            val seconds = (now - before).toNanos / 1e9
            val rate = if seconds > 0 then (ended - endedBefore) / seconds else 0.0
            ((now, ended, counts), stats.snapshot(now - start, rate, Some(countsBefore)))
          }
        }
        .map(_._2)
    }

  /** Runs `handler` on every task and returns the final statistics. The plain form: no results are
    * kept (failures under [[ErrorPolicy.Skip]] are counted only). With no timeout, retry or rate
    * set and tasks under [[Engine.timeAllFrom]], every task is counted but the latency percentiles
    * are estimated from a random one in [[Engine.timeOneIn]] (the clock reads would cost more than
    * a fast task).
    */
  def run[A](source: Source[F, A])(handler: A => F[Unit]): F[Snapshot] =
    execute(source, each(handler), stoppable = true) >> snapshot

  /** [[run]] for a caller that holds no handle to [[stop]] it ([[weir.engine.Processing.run]]): it
    * starts no fiber to watch for a stop, so the strategy's own fibers are the only ones scheduled
    * and its virtual-time figures are exactly the strategy's alone.
    */
  private[weir] def runToEnd[A](source: Source[F, A])(handler: A => F[Unit]): F[Unit] =
    execute(source, each(handler), stoppable = false)

  /** The plain form's task: [[process]] when a policy needs it, else the light path [[plain]]. */
  private def each[A](handler: A => F[Unit]): A => F[Unit] =
    if settings.taskTimeout.isEmpty && !settings.retry.retries && settings.rate.isEmpty then
      task => plain(task, handler)
    else task => process(task, handler).void

  /** One task with no timeout, retry or rate: counted like any other. Its latency is measured when
    * tasks are slow (the last one timed took at least [[Engine.timeAllFrom]], and at the start),
    * else for one task in [[Engine.timeOneIn]], drawn at random and recorded with that weight, so
    * that the percentiles stay unbiased: two clock reads cost more than a whole no-op task under
    * the default strategy (EngineOverheadBench).
    */
  private def plain[A](task: A, handler: A => F[Unit]): F[Unit] = F.defer {
    if stopping then F.delay(stats.failed("not-started", 0L, wasStarted = false))
    else if timeAll then timedPlain(task, handler, 1)
    else if java.util.concurrent.ThreadLocalRandom.current().nextInt(Engine.timeOneIn) == 0 then
      timedPlain(task, handler, Engine.timeOneIn)
    else
      F.delay(stats.started()) >> handler(task).redeemWith(
        error => failedPlain(task, error, 0L, 1),
        _ => F.delay(stats.succeededUntimed())
      )
  }

  private def timedPlain[A](task: A, handler: A => F[Unit], weight: Int): F[Unit] =
    F.monotonic.flatMap { begin =>
      def took(end: FiniteDuration): Long =
        val nanos = (end - begin).toNanos
        timeAll = nanos >= Engine.timeAllFrom.toNanos
        nanos
      F.delay(stats.started()) >> handler(task).redeemWith(
        error => F.monotonic.flatMap(end => failedPlain(task, error, took(end), weight)),
        _ => F.monotonic.flatMap(end => F.delay(stats.succeeded(took(end), weight)))
      )
    }

  private def failedPlain[A](task: A, error: Throwable, nanos: Long, weight: Int): F[Unit] =
    val counted =
      F.delay(stats.failed(TaskOutcome.className(error), nanos, wasStarted = true, weight))
    settings.onError match
      case ErrorPolicy.Skip => counted
      case ErrorPolicy.FailFast =>
        F.delay { stopping = true } >> counted >> F.raiseError(error match
          case named: WeirError.TaskFailed => named
          case _                           => WeirError.TaskFailed(task, error)
        )

  /** Runs `handler` on every task and emits each task's [[TaskResult]]: in the order tasks end, or
    * in the source's order with [[EngineSettings.withOrderedResults]]. The stream ends when the run
    * does; a fail-fast failure is raised after the results that ended before it. Pulling stops
    * early (`take`) cancel the run.
    */
  def results[A, B](source: Source[F, A])(handler: A => F[B]): Stream[F, TaskResult[A, B]] =
    val next = new AtomicLong(0L)
    if settings.ordered then
      guarded(
        taking(source, haltable = true).sequential.zipWithIndex
          .parEvalMap(settings.limits.concurrency) { (task, index) =>
            result(task, index, handler)
          }
      )
    else
      Stream
        .eval(
          (
            Channel.bounded[F, TaskResult[A, B]](settings.limits.concurrency),
            Ref.of[F, Option[Throwable]](None)
          ).tupled
        )
        .flatMap { (channel, failure) =>
          val work = execute(
            source,
            task =>
              F.delay(next.getAndIncrement())
                .flatMap(index => result(task, index, handler).flatMap(r => channel.send(r).void)),
            stoppable = true
          )
          val producer =
            work.handleErrorWith(e => failure.set(Some(e))).guarantee(channel.close.void)
          channel.stream.concurrently(Stream.eval(producer)) ++
            Stream.eval(failure.get).flatMap(_.fold(Stream.empty)(Stream.raiseError[F]))
        }

  // The ordered path has no strategy: the stop's grace period interrupts the stream itself.
  private def guarded[O](results: Stream[F, O]): Stream[F, O] =
    results.interruptWhen(graceOver.attempt).onFinalize(countCancelled)

  /** `each` over every task with the strategy, counting tasks as they are taken; when `stoppable`,
    * taking ends at a stop and the run is cancelled when the stop's grace period is over (a watcher
    * fiber and an interruption of the source: both only when asked for).
    */
  private def execute[A](source: Source[F, A], each: A => F[Unit], stoppable: Boolean): F[Unit] =
    if stoppable then
      val work = settings.strategy.run(taking(source, haltable = true), settings.limits)(each)
      F.race(work, graceOver).void.guarantee(countCancelled)
    else settings.strategy.run(source, settings.limits)(each).guarantee(countCancelled)

  private def graceOver: F[Unit] = stopRequested.get >> F.sleep(settings.stopGrace)

  // Tasks still in flight once the run has ended were cancelled (by the grace period, a failure
  // or a cancellation of the run), and tasks still buffered were never started: counted here in
  // one step, with no per-task finalizer.
  private def countCancelled: F[Unit] = F.delay(stats.settleUnfinished())

  /** The source, counted as it is taken and, if `haltable`, ending at a stop (see [[Haltable]]: the
    * stop ends the source without cancelling tasks in flight).
    */
  private def taking[A](source: Source[F, A], haltable: Boolean): Source[F, A] =
    Source
      .fromPartitions(source.partitions.map { partition =>
        val counted = partition.chunks.evalTap(c => F.delay(stats.taken(c.size))).unchunks
        if haltable then Haltable(counted, stopRequested.get) else counted
      })
      .fold(_ => source, identity)

  private def result[A, B](task: A, index: Long, handler: A => F[B]): F[TaskResult[A, B]] =
    process(task, handler).map((outcome, attempts, latency) =>
      TaskResult(task, index, outcome, attempts, latency)
    )

  /** One task from start to end: its outcome, attempts and latency, counted in the statistics.
    * Raises [[WeirError.TaskFailed]] for a failure under [[ErrorPolicy.FailFast]].
    */
  private def process[A, B](task: A, handler: A => F[B]): F[(TaskOutcome[B], Int, FiniteDuration)] =
    // Deferred: a strategy may build a task's effect long before it runs it.
    F.defer(
      if stopping then
        F.delay(stats.failed("not-started", 0L, wasStarted = false))
          .as((TaskOutcome.NotStarted, 0, Duration.Zero))
      else
        F.monotonic.flatMap { begin =>
          F.delay(stats.started()) >> attempts(task, handler, 1).flatMap { (outcome, tries) =>
            F.monotonic.flatMap { end =>
              val latency = end - begin
              outcome match
                case TaskOutcome.Succeeded(_) =>
                  F.delay(stats.succeeded(latency.toNanos)).as((outcome, tries, latency))
                case failure =>
                  val counted = F.delay(
                    stats.failed(failure.failureClass.getOrElse("failed"), latency.toNanos, true)
                  )
                  settings.onError match
                    case ErrorPolicy.Skip     => counted.as((outcome, tries, latency))
                    case ErrorPolicy.FailFast =>
                      // Nothing starts after the failure, even before the strategy sees it.
                      F.delay { stopping = true } >> counted >> F.raiseError(failure match
                        // A handler that already names its task (a nested run) keeps its name.
                        case TaskOutcome.Failed(named: WeirError.TaskFailed) => named
                        case _ => WeirError.TaskFailed(task, causeOf(failure))
                      )
            }
          }
        }
    )

  private def causeOf(outcome: TaskOutcome[?]): Throwable = outcome match
    case TaskOutcome.Failed(error)   => error
    case TaskOutcome.TimedOut(after) => new TaskTimeout(after)
    case other                       => new IllegalStateException(s"task ended as $other")

  /** Attempt `n` and, while the retry policy allows, the ones after it. */
  private def attempts[A, B](task: A, handler: A => F[B], n: Int): F[(TaskOutcome[B], Int)] =
    once(task, handler).attempt.flatMap {
      case Right(value) => F.pure((TaskOutcome.Succeeded(value), n))
      case Left(error) if settings.retry.shouldRetry(n, error) =>
        F.delay(stats.retried()) >> random.nextDouble.flatMap(fraction =>
          F.sleep(settings.retry.delay(n, fraction))
        ) >> attempts(task, handler, n + 1)
      case Left(timeout: TaskTimeout) => F.pure((TaskOutcome.TimedOut(timeout.after), n))
      case Left(error)                => F.pure((TaskOutcome.Failed(error), n))
    }

  /** One attempt: a rate token, then the handler under the per-task timeout. */
  private def once[A, B](task: A, handler: A => F[B]): F[B] =
    val call = settings.taskTimeout match
      case None          => handler(task)
      case Some(timeout) => handler(task).timeoutTo(timeout, F.raiseError(new TaskTimeout(timeout)))
    bucket.fold(call)(_.acquire >> call)

object Engine:

  /** In the plain form with no policy set and fast tasks, one task in this many is timed (see
    * [[Engine.run]]).
    */
  val timeOneIn: Int = 16

  /** In the plain form, tasks are all timed while the last one timed took at least this long (two
    * clock reads are then under 0.3 % of a task).
    */
  val timeAllFrom: FiniteDuration = 20.micros

  /** A new engine for one run with `settings`; its clock starts now. */
  def create[F[_]: Async](settings: EngineSettings): F[Engine[F]] =
    Random.scalaUtilRandom[F].flatMap(create(settings, _))

  /** [[create]] drawing backoff jitter from `random` (seed it for a repeatable run). */
  def create[F[_]: Async](settings: EngineSettings, random: Random[F]): F[Engine[F]] =
    (Deferred[F, Unit], settings.rate.traverse(TokenBucket.create[F]), Async[F].monotonic).mapN(
      (stop, bucket, start) =>
        new Engine(settings, EngineStats.create(), stop, bucket, random, start)
    )
