package weir.engine

import cats.effect.kernel.{Async, Ref, Resource}
import cats.effect.std.Random
import cats.effect.syntax.all.*
import cats.syntax.all.*
import fs2.Stream
import fs2.concurrent.Channel
import java.util.concurrent.atomic.AtomicLong
import scala.concurrent.duration.*
import weir.Source
import weir.strategy.{Haltable, Tasks}

/** weir's one engine: runs a handler over every task of a [[weir.Source]] with a
  * [[weir.strategy.Strategy]], under one [[EngineSettings]] value (concurrency, queue capacity,
  * rate, per-task timeout, retries, error policy, graceful stop), and keeps live statistics.
  *
  * An engine is made for one run: [[run]] or [[results]] once; its statistics are that run's.
  *
  * '''Concurrency.''' At most `concurrency` tasks are in flight and at most about `queueCapacity`
  * are buffered, as the strategy bounds them; the source is read no further ahead. Retries and
  * backoff waits happen inside the task's slot, so a retried task keeps its place in the bound.
  * With [[EngineSettings.withAdaptiveConcurrency]] the strategy runs the maximum and an
  * [[AdaptiveLimiter]] lets at most its current limit of attempts run at once.
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
    control: RunControl[F],
    exec: TaskExecution[F],
    shares: ShareRunner[F],
    limiter: Option[AdaptiveLimiter[F]],
    start: FiniteDuration
)(using F: Async[F]):

  /** Stops the run gracefully (see [[Engine]]): [[RunState.Stopping]]. Idempotent, returns at once;
    * a stop before the run begins means it takes no task at all.
    */
  def stop: F[Unit] = control.stop

  /** Stops the run and ends the grace period at once: tasks in flight are cancelled now (a second
    * Ctrl-C), [[RunState.CutOff]]. The run then completes normally, as after a grace period.
    * Idempotent.
    */
  def stopNow: F[Unit] = control.stopNow

  /** Where the run is in its life now (see [[RunState]]). */
  def state: F[RunState] = control.state

  /** How the run ended: waits until it has (see [[RunOutcome]]). */
  def outcome: F[RunOutcome] = control.outcome

  /** The statistics now, with the rate and recent latencies since the start. */
  def snapshot: F[Snapshot] = (F.monotonic, limit).mapN { (now, limit) =>
    val elapsed = now - start
    val seconds = elapsed.toNanos / 1e9
    stats.snapshot(elapsed, if seconds > 0 then stats.ended / seconds else 0.0, None, limit)
  }

  /** A snapshot every `every` (a fixed rate, the first after `every`), each with the rate and the
    * recent latencies since the one before. Runs until the caller stops pulling; any number of
    * callers may pull their own at once.
    */
  def snapshots(every: FiniteDuration): Stream[F, Snapshot] =
    Stream.eval(F.monotonic.map(now => (now, stats.ended, stats.latencyCounts))).flatMap { first =>
      Stream
        .fixedRate[F](every)
        .evalMapAccumulate(first)((before, _) => sinceThen(before))
        .map(_._2)
    }

  // The statistics now, their rate and recent latencies since `before` (an earlier moment, tasks
  // ended then and the latency counts then); with the moment now, for the next call.
  private def sinceThen(
      before: (FiniteDuration, Long, Array[Long])
  ): F[((FiniteDuration, Long, Array[Long]), Snapshot)] =
    (F.monotonic, limit).mapN { (now, limit) =>
      val (earlier, endedBefore, countsBefore) = before
      val ended = stats.ended
      val counts = stats.latencyCounts
      val seconds = (now - earlier).toNanos / 1e9
      val rate = if seconds > 0 then (ended - endedBefore) / seconds else 0.0
      ((now, ended, counts), stats.snapshot(now - start, rate, Some(countsBefore), limit))
    }

  /** A source of snapshots each relative to the one it took before (the first, to the start), as
    * [[snapshots]] gives them. Calls must not overlap.
    */
  private def ticker: F[F[Snapshot]] =
    F.monotonic.flatMap(now => Ref.of((now, stats.ended, stats.latencyCounts))).map { previous =>
      previous.get.flatMap(sinceThen).flatMap((now, snapshot) => previous.set(now).as(snapshot))
    }

  /** This engine's run as a [[Run]] handle. */
  private def handle: Run[F] = new Run[F]:
    def stop: F[Unit] = Engine.this.stop
    def stopNow: F[Unit] = Engine.this.stopNow
    def state: F[RunState] = Engine.this.state
    def snapshot: F[Snapshot] = Engine.this.snapshot
    def snapshots(every: FiniteDuration): Stream[F, Snapshot] = Engine.this.snapshots(every)
    def outcome: F[RunOutcome] = Engine.this.outcome
    def join: F[Snapshot] = outcome.flatMap {
      case RunOutcome.Failed(error) => F.raiseError(error)
      case _                        => Engine.this.snapshot
    }

  // The concurrency limit now: the adaptive one's, else the fixed one.
  private def limit: F[Int] = limiter.fold(F.pure(settings.limits.concurrency))(_.limit)

  /** Runs `handler` on every task and returns the final statistics. The plain form: no results are
    * kept (failures under [[ErrorPolicy.Skip]] are counted only). Without a rate or an adaptive
    * limit, tasks run in the strategy's shares ([[ShareRunner]]): counted and timed once per share,
    * every task of a share recorded with the share's mean time.
    */
  def run[A](source: Source[F, A])(handler: A => F[Unit]): F[Snapshot] =
    execute(source, each(handler, stoppable = true), stoppable = true) >> snapshot

  /** [[run]] for a run that is never stopped, a documented mode of its own: every task of the
    * source is handled (or the run fails, or is cancelled); nothing watches for [[stop]] or
    * [[stopNow]] (a stop only keeps tasks that reach the per-task path, under a rate or an adaptive
    * limit, from starting: they end as not started, and the source is still taken to its end), and
    * no statistics are returned (read [[snapshot]] while it runs or after). What it saves: no fiber
    * of the engine's own is started, so the strategy's fibers are the only ones scheduled and a
    * seeded virtual-time run is exactly the strategy's alone ([[Processing.run]], the lab's
    * comparisons of strategies). Use [[run]] or [[Engine.start]] whenever the run may be stopped.
    *
    * Why it exists (tried 2026-11-25): with [[run]] instead (the stop watcher's race and the
    * strategy's halt), the seeded virtual-time schedule changes, and weir's slow-consumer figure
    * went from at least as fast as `unordered` to slower (5.682 s against 5.670 s)
    * (`VirtualTimeSuite`, `WeirVirtualTimeSuite`).
    *
    * Errors and cancellation as in [[run]]: a handler's failure under [[ErrorPolicy.FailFast]]
    * fails it with [[weir.WeirError.TaskFailed]]; cancelling it cancels producers and handlers.
    */
  def runToEnd[A](source: Source[F, A])(handler: A => F[Unit]): F[Unit] =
    execute(source, each(handler, stoppable = false), stoppable = false)

  private def each[A](handler: A => F[Unit], stoppable: Boolean): Tasks[F, A] =
    if exec.sharesWill then shares.tasks(handler, stoppable)
    else
      val next = new AtomicLong(0L)
      Tasks.of(task => F.delay(next.getAndIncrement()).flatMap(exec.process(task, _, handler)).void)

  /** Runs `handler` on every task and hands each task's [[TaskResult]] to `sink` as the task ends,
    * in the task's own fiber before its slot is freed (so at most `concurrency` sink calls run at
    * once, in any order, and a slow sink slows the run). Returns the final statistics.
    *
    * The completion side of a job: acknowledging a queue's jobs, recording a load's responses. An
    * error raised by `sink` stops the run as a fail-fast failure would (what is in flight is
    * cancelled) and fails it with that error as raised: it is the sink's, not the task's, so it is
    * not wrapped in [[weir.WeirError.TaskFailed]].
    */
  def runTo[A, B](source: Source[F, A])(handler: A => F[B])(
      sink: TaskResult[A, B] => F[Unit]
  ): F[Snapshot] =
    val next = new AtomicLong(0L)
    val each = Tasks.of[F, A](task =>
      F.delay(next.getAndIncrement()).flatMap(exec.process(task, _, handler)).flatMap(sink)
    )
    execute(source, each, stoppable = true) >> snapshot

  /** Runs `handler` on every task with `recorder` fed every result (as [[runTo]]'s sink is) and
    * sampled every `tick` and once more when the run has ended, before it settles (see
    * [[Recorder]]). Returns the final statistics.
    */
  def runRecorded[A, B](source: Source[F, A], recorder: Recorder[F, A, B], tick: FiniteDuration)(
      handler: A => F[B]
  ): F[Snapshot] =
    val next = new AtomicLong(0L)
    val each = Tasks.of[F, A](task =>
      F.delay(next.getAndIncrement())
        .flatMap(exec.process(task, _, handler))
        .flatMap(recorder.record)
    )
    ticker.flatMap { nextTick =>
      val sampled = nextTick.flatMap(recorder.sample)
      val ticking = Stream.fixedRate[F](tick).evalMap(_ => sampled).compile.drain
      execute(
        source,
        each,
        stoppable = true,
        around = work => ticking.background.surround(work).guarantee(sampled)
      )
    } >> snapshot

  /** Runs `handler` on every task and emits each task's [[TaskResult]] in the order tasks end. The
    * stream ends when the run does; a fail-fast failure is raised after the results that ended
    * before it. Pulling stops early (`take`) cancel the run.
    */
  def results[A, B](source: Source[F, A])(handler: A => F[B]): Stream[F, TaskResult[A, B]] =
    Stream
      .eval(
        (
          Channel.bounded[F, TaskResult[A, B]](settings.limits.concurrency),
          Ref.of[F, Option[Throwable]](None)
        ).tupled
      )
      .flatMap { (channel, failure) =>
        val work = runTo(source)(handler)(r => channel.send(r).void)
        val producer =
          work.void.handleErrorWith(e => failure.set(Some(e))).guarantee(channel.close.void)
        channel.stream.concurrently(Stream.eval(producer)) ++
          Stream.eval(failure.get).flatMap(_.fold(Stream.empty)(Stream.raiseError[F]))
      }

  /** [[results]] in the source's order: a mode of its own, not a strategy. Tasks flow through an
    * ordered window of `concurrency` slots (fs2's `parEvalMap`): a task starts as soon as a slot is
    * free, and its result is emitted once every earlier one has been, so one slow task holds back
    * the results (and, once the window is full, the starts) behind it. The settings' strategy and
    * queue capacity are not used; retries, timeouts, the rate, the error policy, the statistics and
    * the stop are as in [[results]]. Use it when results must be consumed in order (a response per
    * request line); otherwise prefer [[results]].
    */
  def resultsInOrder[A, B](source: Source[F, A])(handler: A => F[B]): Stream[F, TaskResult[A, B]] =
    Haltable(counted(source).sequential, control.halt).zipWithIndex
      .parEvalMap(settings.limits.concurrency)((task, index) => exec.process(task, index, handler))
      // No strategy here: the stop's grace period interrupts the stream itself.
      .interruptWhen(control.cutOff.attempt)
      .onFinalize(countCancelled)
      .onFinalizeCase(control.ended)

  /** `tasks` over every task with the strategy, counting tasks as they are taken; when `stoppable`,
    * taking ends at a stop and the run is cancelled when the stop's grace period is over (a watcher
    * fiber, and the source ended at a stop: both only when asked for). `around` wraps the work
    * inside the run's settling (what must end before the outcome is published).
    */
  private def execute[A](
      source: Source[F, A],
      tasks: Tasks[F, A],
      stoppable: Boolean,
      around: F[Unit] => F[Unit] = identity[F[Unit]]
  ): F[Unit] =
    val strategy = settings.strategy
    val work =
      if stoppable then
        val taking = strategy.runTasksUntil(counted(source), settings.limits, control.halt)(tasks)
        F.race(taking, control.cutOff).void.guarantee(countCancelled)
      else strategy.runTasks(counted(source), settings.limits)(tasks).guarantee(countCancelled)
    control.settling(around(work))

  // Tasks still in flight once the run has ended were cancelled (by the grace period, a failure
  // or a cancellation of the run), and tasks still buffered were never started: counted here in
  // one step, with no per-task finalizer.
  private def countCancelled: F[Unit] = F.delay(stats.settleUnfinished())

  /** The source, counted as it is taken: each chunk as it is pulled.
    *
    * A counter bumped inside `mapChunks`, not an effect (`chunks.evalTap(...).unchunks`): fs2 calls
    * the function once per chunk as the stream is run, which is all the count needs, and the three
    * extra stream steps per chunk cost the plain engine 11 % of its no-op throughput
    * (EngineOverheadBench, 2026-11-26: 9.3 against 10.3 M tasks/s at C = 64).
    */
  private def counted[A](source: Source[F, A]): Source[F, A] =
    source.mapPartitions(_.mapChunks { chunk =>
      stats.taken(chunk.size)
      chunk
    })

object Engine:

  /** Starts `handler` over every task of `source` on a new engine with `settings`, in the
    * background, as [[Engine.run]] runs it: the run's handle, for as long as the `Resource` is in
    * use (see [[Run]] for stopping, cancellation and errors).
    */
  def start[F[_]: Async, A](settings: EngineSettings, source: Source[F, A])(
      handler: A => F[Unit]
  ): Resource[F, Run[F]] =
    launch(settings)(_.run(source)(handler).void)

  /** [[start]] with each task's [[TaskResult]] handed to `sink` as the task ends, as
    * [[Engine.runTo]] does.
    */
  def startTo[F[_]: Async, A, B](settings: EngineSettings, source: Source[F, A])(
      handler: A => F[B]
  )(sink: TaskResult[A, B] => F[Unit]): Resource[F, Run[F]] =
    launch(settings)(_.runTo(source)(handler)(sink).void)

  /** [[start]] with `recorder` fed every task's result and sampled every `tick` (and once more at
    * the end, before the run settles), as [[Engine.runRecorded]] runs it: how a command measures a
    * run (see [[Recorder]]).
    */
  def startRecorded[F[_]: Async, A, B](
      settings: EngineSettings,
      source: Source[F, A],
      recorder: Recorder[F, A, B],
      tick: FiniteDuration = 1.second
  )(handler: A => F[B]): Resource[F, Run[F]] =
    launch(settings)(_.runRecorded(source, recorder, tick)(handler).void)

  private def launch[F[_]](settings: EngineSettings)(work: Engine[F] => F[Unit])(using
      F: Async[F]
  ): Resource[F, Run[F]] =
    Resource.eval(create[F](settings)).flatMap { engine =>
      // The work's error is kept by the run's outcome (its settling records it); the fiber's own
      // outcome is not needed, and is not left failed: cats-effect would report a failed fiber
      // nobody joins on stderr (a fail-fast run, such as an apply whose statement failed).
      F.background(work(engine).handleError(_ => ())).as(engine.handle)
    }

  /** A new engine for one run with `settings`; its clock starts now. */
  def create[F[_]: Async](settings: EngineSettings): F[Engine[F]] =
    Random.scalaUtilRandom[F].flatMap(create(settings, _))

  /** [[create]] drawing backoff jitter from `random` (seed it for a repeatable run). */
  def create[F[_]](settings: EngineSettings, random: Random[F])(using F: Async[F]): F[Engine[F]] =
    for
      control <- RunControl.create[F](settings.stopGrace)
      bucket <- settings.rate.traverse(TokenBucket.create[F])
      limiter <- settings.adaptive.traverse(AdaptiveLimiter.create[F])
      stats = EngineStats.create()
      exec = new TaskExecution[F](settings, stats, bucket, limiter, random, control)
      shares = new ShareRunner[F](settings, stats, random, exec)
      start <- F.monotonic
    yield new Engine(settings, stats, control, exec, shares, limiter, start)
