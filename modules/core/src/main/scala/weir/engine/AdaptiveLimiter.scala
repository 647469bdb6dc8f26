package weir.engine

import cats.effect.kernel.{Concurrent, Deferred, Ref}
import cats.effect.syntax.all.*
import cats.syntax.all.*
import scala.collection.immutable.Queue

/** The running side of [[AdaptiveConcurrency]]: a semaphore whose number of permits moves.
  *
  * Invariants: `inFlight <= limit` except just after the limit drops (attempts already started are
  * never cancelled: newcomers wait until enough have ended); a waiter is queued only while
  * `inFlight >= limit`; whenever `inFlight < limit` no one waits. Waiters are served in order.
  * Cancelling a wait gives up the place (a permit handed to a cancelled waiter is passed on). Each
  * window closed starts a new epoch; attempts of an older epoch are not measured.
  */
private[weir] final class AdaptiveLimiter[F[_]] private (
    settings: AdaptiveConcurrency,
    state: Ref[F, AdaptiveLimiter.State[F]]
)(using F: Concurrent[F]):
  import AdaptiveLimiter.*

  /** The limit now. */
  def limit: F[Int] = state.get.map(_.limit)

  /** Waits for a permit and takes it; returns the limit's epoch at the start (pass it to
    * [[release]]).
    */
  def acquire: F[Long] =
    Deferred[F, Unit].flatMap { permit =>
      F.uncancelable { poll =>
        state.modify { s =>
          if s.inFlight < s.limit then (s.copy(inFlight = s.inFlight + 1), F.pure(s.epoch))
          else
            val waiting = poll(permit.get).onCancel(abandon(permit)) >> state.get.map(_.epoch)
            (s.copy(waiters = s.waiters.enqueue(permit)), waiting)
        }.flatten
      }
    }

  /** Gives the permit back, with what the attempt measured (`sample`: its latency and whether it
    * failed with an overload error; `None` for a cancelled attempt, which tells nothing). Only
    * attempts started at the current limit (`epoch` from [[acquire]]) are measured: one started
    * before the limit last moved tells of the old limit. May move the limit and wake waiters.
    */
  def release(epoch: Long, sample: Option[(Long, Boolean)]): F[Unit] =
    state.modify { s =>
      val measured = sample match
        case Some((nanos, overloaded)) if epoch == s.epoch => s.record(nanos, overloaded, settings)
        case _                                             => s
      val (woken, after) = measured.copy(inFlight = s.inFlight - 1).handOut
      (after, woken.traverse_(_.complete(()).void))
    }.flatten

  // A waiter cancelled: drop it from the queue, or, if it was already handed a permit, pass it on.
  private def abandon(permit: Deferred[F, Unit]): F[Unit] =
    state.modify { s =>
      if s.waiters.contains(permit) then
        (s.copy(waiters = s.waiters.filterNot(_ == permit)), F.unit)
      else
        val (woken, after) = s.copy(inFlight = s.inFlight - 1).handOut
        (after, woken.traverse_(_.complete(()).void))
    }.flatten

private[weir] object AdaptiveLimiter:

  /** A limiter at `settings.initial`. */
  def create[F[_]: Concurrent](settings: AdaptiveConcurrency): F[AdaptiveLimiter[F]] =
    Ref
      .of[F, State[F]](State(settings.initial, 0, Queue.empty, Window.empty, None, 0L, true))
      .map(new AdaptiveLimiter(settings, _))

  /** Attempts measured since the last adjustment (their count, sum and sum of squares of latency in
    * ns, and how many were overload errors); `settling` more are to be skipped first.
    */
  private[engine] final case class Window(
      count: Int,
      sum: Double,
      sumOfSquares: Double,
      overloads: Int,
      settling: Int
  ):
    def add(nanos: Long, overloaded: Boolean): Window =
      if settling > 0 then copy(settling = settling - 1)
      else
        val x = nanos.toDouble
        Window(
          count + 1,
          sum + x,
          sumOfSquares + x * x,
          overloads + (if overloaded then 1 else 0),
          0
        )

    def mean: Double = sum / count

    /** The standard error of the mean. */
    def standardError: Double =
      math.sqrt(math.max(0.0, sumOfSquares / count - mean * mean) / count)

  private[engine] object Window:
    val empty: Window = Window(0, 0.0, 0.0, 0, 0)

    /** A window that first skips `n` attempts: one round of every permit at a new limit, while the
      * downstream's queue settles to it (measured at once, a rising queue looks shorter than it
      * will be, and the limit overshoots).
      */
    def settlingFor(n: Int): Window = Window(0, 0.0, 0.0, 0, n)

  /** `limit` permits, `inFlight` taken; `baseline` is the no-queue latency estimate (ns); `epoch`
    * counts the windows closed so far.
    */
  private[engine] final case class State[F[_]](
      limit: Int,
      inFlight: Int,
      waiters: Queue[Deferred[F, Unit]],
      window: Window,
      baseline: Option[Double],
      epoch: Long,
      slowStart: Boolean
  ):
    /** Hands free permits to waiters, in order. */
    def handOut: (List[Deferred[F, Unit]], State[F]) =
      val free = (limit - inFlight).max(0).min(waiters.size)
      if free == 0 then (Nil, this)
      else
        val (woken, rest) = waiters.splitAt(free)
        (woken.toList, copy(inFlight = inFlight + free, waiters = rest))

    /** Adds one attempt to the window; at the window's end, moves the limit (see
      * [[AdaptiveConcurrency]]).
      */
    def record(nanos: Long, overloaded: Boolean, a: AdaptiveConcurrency): State[F] =
      val w = window.add(math.max(nanos, 0L), overloaded)
      if w.count < a.minWindow.max(limit) then copy(window = w)
      else
        val (newLimit, newBaseline) = Adjust(limit, baseline, w, a, slowStart)
        val next = Window.settlingFor(newLimit)
        // Slow start ends at the first window that did not grow the limit by a quarter or more.
        val starting = slowStart && newLimit * 4 >= limit * 5
        copy(
          limit = newLimit,
          window = next,
          baseline = newBaseline,
          epoch = epoch + 1,
          slowStart = starting
        )

  /** One adjustment, pure: the next limit and baseline after a window. A rise of the mean over the
    * baseline counts only when it is also beyond the window's noise (2 or 3 standard errors): with
    * scattered latencies a small window's mean wanders far.
    */
  private[engine] object Adjust:
    def apply(
        limit: Int,
        baseline: Option[Double],
        w: Window,
        a: AdaptiveConcurrency,
        slowStart: Boolean = false
    ): (Int, Option[Double]) =
      val mean = w.mean
      val noise = w.standardError
      def clamp(x: Double): Int = math.round(x).toInt.max(a.min).min(a.max)
      def grow(by: Double): Int = clamp(limit + (limit * by).max(1))
      if w.overloads * 100 > w.count then (clamp(limit * 0.75), baseline)
      else
        baseline match
          case None => (grow(if slowStart then 0.5 else 0.1), Some(mean))
          case Some(base) =>
            val excess = mean - base
            if excess > (a.tolerance * base).max(3 * noise) then
              // Queueing: cut to where the mean would be a little under the baseline, so that the
              // next windows run without a queue and measure the baseline again.
              (clamp(limit * (1 - a.tolerance / 2) * base / mean), baseline)
            else if excess > (a.tolerance / 2 * base).max(2 * noise) then
              // Near the knee: grow slowly; the baseline stays (a queue building up must not
              // raise it).
              (grow(0.02), baseline)
            else
              // No queueing: grow (by half in the slow start, else by a tenth); the baseline
              // follows the mean, quickly when it is clearly lower.
              val follow = if excess < -2 * noise then 0.5 else 0.1
              (grow(if slowStart then 0.5 else 0.1), Some(base + excess * follow))
