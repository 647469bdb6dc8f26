package weir.engine

import cats.effect.kernel.{Async, Clock, Fiber, Outcome}
import cats.effect.std.Random
import cats.effect.syntax.all.*
import cats.syntax.all.*
import java.util.concurrent.atomic.AtomicLong
import scala.concurrent.duration.*
import weir.strategy.Tasks

/** The engine's [[Tasks]] for runs that keep no per-task result ([[Engine.run]], [[Processing]]): a
  * share of tasks runs one after another, as the strategy asked, with the engine's costs paid once
  * per share, not once per task. Counted when it starts and ends (in flight meanwhile); timed once,
  * every task of it recorded with the share's mean time; one error handler for the whole share,
  * which, on a task's failure, applies the retry policy and the error policy to that task and goes
  * on with the rest; a stop checked before each task (a volatile read: after a stop, the tasks of a
  * share not yet begun do not start). A strategy that runs tasks one by one gets shares of one.
  *
  * '''Per-task timeout.''' Each share then runs in a fiber of its own beside a watchdog fiber that
  * sleeps until the current task's deadline; a task still running at its deadline is claimed and
  * the share's fiber cancelled, the task counted as timed out (or retried), and the rest of the
  * share goes on in a new fiber. Claiming is a compare-and-set on the share's count of tasks begun,
  * so a task that ends at its deadline either finishes or is timed out, never the next one. Two
  * fibers a share instead of a race (two fibers and a timer) per task: this is what keeps a timeout
  * cheap when tasks are fast (EngineOverheadBench, `engine-timeout`).
  *
  * '''Cancellation.''' Cancelling a share cancels its task in flight (and its watchdog) and returns
  * once they have stopped; the tasks it did not reach are left for the engine's end-of-run count.
  */
private[engine] final class ShareRunner[F[_]](
    settings: EngineSettings,
    stats: EngineStats,
    random: Random[F],
    exec: TaskExecution[F]
)(using F: Async[F]):
  import ShareRunner.*

  /** The engine's tasks for `handler`; `stoppable` when the run can be stopped (then a share taken
    * after the stop does not start).
    */
  def tasks[A](handler: A => F[Unit], stoppable: Boolean): Tasks[F, A] = new Tasks[F, A]:
    def one(task: A): F[Unit] = share(task :: Nil)
    def share(tasks: List[A]): F[Unit] = run(tasks, handler, stoppable).void
    override def timedShare(tasks: List[A])(using Clock[F]): F[FiniteDuration] =
      run(tasks, handler, stoppable)

  // The share's tasks run, counted; how long they took to run (see `Tasks.timedShare`): its time
  // less the waits of its fibers to be scheduled, under a per-task timeout (zero if it did not run).
  private def run[A](
      tasks: List[A],
      handler: A => F[Unit],
      stoppable: Boolean
  ): F[FiniteDuration] =
    F.defer {
      val size = tasks.size
      if stoppable && exec.stopping then F.delay(stats.notStarted(size)).as(Duration.Zero)
      else
        F.monotonic.flatMap { begin =>
          val c = new Cursor[A](tasks, size, begin, settings.taskTimeout.isDefined, stoppable)
          F.delay(stats.started(size)) >> guarded(c, handler) >> F.monotonic.flatMap(end =>
            F.delay {
              stats.endedNotRun(c.notRun)
              stats.succeededMany(size - c.failures - c.notRun, (end - begin).toNanos / size)
              (end - begin - c.waited.nanos).max(Duration.Zero)
            }
          )
        }
    }

  /** The rest of the share, its failures handled task by task. */
  private def guarded[A](c: Cursor[A], handler: A => F[Unit]): F[Unit] =
    val body = settings.taskTimeout match
      case None          => loop(c, handler)
      case Some(timeout) => watched(c, handler, timeout)
    body.handleErrorWith(error => recover(c, handler, error))

  // Each step sets the cursor as it begins: the construction of `loop` happens in the continuation
  // of the task before, so `current` is always the task running (one fiber, in order). This is
  // the per-task cost of a share: one flatMap, as the strategy's own loop had.
  private def loop[A](c: Cursor[A], handler: A => F[Unit]): F[Unit] = c.rest match
    case Nil                    => F.unit
    case _ if c.stopsHere(exec) => F.unit
    case task :: rest =>
      c.current = task
      c.rest = rest
      c.position += 1
      handler(task) >> loop(c, handler)

  /** [[loop]] with a deadline per task: the share in a fiber, a watchdog beside it. The fiber's
    * waits to be scheduled (from its start to its first step, from its last step to the join's
    * return) are added to the cursor's `waited`: with many workers, each of those waits is every
    * other worker's turn, and counting them as the share's own time would keep the strategy's
    * shares at one or two tasks (`Tasks.timedShare`).
    */
  private def watched[A](c: Cursor[A], handler: A => F[Unit], timeout: FiniteDuration): F[Unit] =
    F.uncancelable { poll =>
      val from = c.position.toLong
      F.monotonic.flatMap { asked =>
        val body = F.monotonic.flatMap { began =>
          F.delay(c.waited += (began - asked).toNanos) >> timedLoop(c, handler, timeout) >>
            F.monotonic.flatMap(ended => F.delay(c.lastStep = ended.toNanos))
        }
        F.delay(c.claim.nn.set(from)) >> body.start.flatMap { share =>
          watch(c, share, timeout, from).start.flatMap { dog =>
            poll(share.join).onCancel(share.cancel >> dog.cancel).flatMap { outcome =>
              dog.cancel >> (outcome match
                case Outcome.Succeeded(done) =>
                  F.monotonic.flatMap(joined => F.delay(c.waited += joined.toNanos - c.lastStep)) >>
                    done
                case Outcome.Errored(error) => F.raiseError(error)
                // Only the watchdog cancels the share's fiber: its current task timed out.
                case Outcome.Canceled() => F.raiseError(new TaskTimeout(timeout))
              )
            }
          }
        }
      }
    }

  private def timedLoop[A](c: Cursor[A], handler: A => F[Unit], timeout: FiniteDuration): F[Unit] =
    c.rest match
      case Nil                    => F.unit
      case _ if c.stopsHere(exec) => F.unit
      case task :: rest =>
        F.monotonic.flatMap { now =>
          // The deadline is written before the count that makes it the current task's.
          c.deadline = now.toNanos + timeout.toNanos
          if c.claim.nn.compareAndSet(c.position.toLong, c.position + 1L) then
            c.current = task
            c.rest = rest
            c.position += 1
            handler(task) >> timedLoop(c, handler, timeout)
          else F.never // the watchdog claimed the task before; it is cancelling this fiber
        }

  /** Watches the tasks `share` begins after the `from`-th; cancels it when one passes its deadline.
    */
  private def watch[A](
      c: Cursor[A],
      share: Fiber[F, Throwable, Unit],
      timeout: FiniteDuration,
      from: Long
  ): F[Unit] =
    F.monotonic.flatMap { now =>
      val begun = c.claim.nn.get
      val deadline = c.deadline
      // None begun yet in this fiber: the first cannot time out within `timeout` from now.
      if begun <= from then F.sleep(timeout) >> watch(c, share, timeout, from)
      else if now.toNanos < deadline then
        F.sleep((deadline - now.toNanos).nanos) >> watch(c, share, timeout, from)
      else if c.claim.nn.compareAndSet(begun, Claimed) then share.cancel
      else watch(c, share, timeout, from) // that task ended meanwhile
    }

  /** After the current task's first attempt failed: its retries while the policy allows
    * ([[RetryPolicy.recovering]]), then the error policy applied to it, and the rest of the share
    * (or the share failed).
    */
  private def recover[A](c: Cursor[A], handler: A => F[Unit], error: Throwable): F[Unit] =
    settings.retry.recovering(error, random, exec.retried)(once(c.current, handler)).flatMap {
      case (Right(_), _) => guarded(c, handler)
      case (Left(error), _) =>
        c.failures += 1
        val counted = F.delay(stats.failed(FailureClass.of(error), 0L))
        settings.onError match
          case ErrorPolicy.Skip => counted >> guarded(c, handler)
          case ErrorPolicy.FailFast =>
            F.monotonic.flatMap { end =>
              F.delay {
                exec.stopTaking() // nothing starts after the failure, even before the strategy sees it
                stats.endedNotRun(c.size - c.position)
                val done = c.position - c.failures
                stats.succeededMany(done, (end - c.begin).toNanos / math.max(1, c.position))
              } >> counted >> F.raiseError(TaskExecution.named(c.current, error))
            }
    }

  /** One more attempt of one task (a retry), under the per-task timeout as a plain race: a retry is
    * rare, so it does not need the watchdog's economy.
    */
  private def once[A](task: A, handler: A => F[Unit]): F[Unit] = settings.taskTimeout match
    case None => handler(task)
    case Some(timeout) =>
      handler(task).timeoutTo(timeout, F.defer(F.raiseError(new TaskTimeout(timeout))))

private[engine] object ShareRunner:

  /** The watchdog's mark on a share's count of tasks begun: its current task timed out. */
  private val Claimed = -1L

  /** Where a share is: the tasks left, the one running, how many begun and failed. Written by the
    * share's fiber; read by the watchdog (the claim and the deadline, which are atomic or volatile)
    * and, after the share's fiber has ended, by the worker.
    */
  private final class Cursor[A](
      var rest: List[A],
      val size: Int,
      val begin: FiniteDuration,
      timed: Boolean,
      stoppable: Boolean
  ):
    var current: A = scala.compiletime.uninitialized
    var position = 0 // tasks begun; `current` is the position-th
    var failures = 0 // tasks given up on
    var notRun = 0 // tasks left when a stop came
    var waited = 0L // nanoseconds the share's fibers waited to be scheduled (with a timeout)
    var lastStep = 0L // when the share's fiber took its last step (read after joining it)

    /** True, once, when a stop has come before the next task: the rest of the share does not run.
      */
    def stopsHere(exec: TaskExecution[?]): Boolean =
      if stoppable && position > 0 && exec.stopping then
        notRun = size - position
        rest = Nil
        true
      else false

    /** With a timeout: tasks begun, or [[Claimed]]. */
    val claim: AtomicLong | Null = if timed then new AtomicLong(0L) else null
    @volatile var deadline = 0L
