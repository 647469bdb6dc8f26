package weir.http

import cats.Eq
import cats.effect.kernel.Concurrent
import cats.effect.syntax.all.*
import cats.syntax.all.*
import fs2.Stream
import fs2.concurrent.SignallingRef
import scala.concurrent.duration.FiniteDuration
import weir.engine.Run

/** What a [[LoadRun]] holds beside its engine run: where the load is ([[LoadControl.Stage]]: before
  * its run, warming up or not; then its run) and the stop asked of it ([[LoadControl.Stop]]: the
  * first reason, and whether it is to be without grace).
  *
  * It stops nothing itself: a stop is passed on to the run's own [[weir.engine.Run.stop]] or
  * [[weir.engine.Run.stopNow]], whose lifecycle ([[weir.engine.RunState]]) is the only one that
  * ends requests. A stop asked before the run exists is kept and told to the run as it starts; it
  * also cancels a warm-up ([[warming]]) and means the load launches nothing ([[launching]]).
  *
  * '''Invariant.''' The stage goes from `Before` to `Running` once and never back; `stop` is set by
  * the first stop and afterwards only its `now` may turn true. Once the stage is `Running`, its run
  * has been told the stop asked so far (its strongest form) and is told each later one: every
  * transition and what it owes the run are one uncancelable step ([[on]]), so a stop that races the
  * run's start is told to the run exactly once, by whichever step comes second.
  */
private[http] final class LoadControl[F[_]] private (
    state: SignallingRef[F, LoadControl.State[F]]
)(using F: Concurrent[F]):
  import LoadControl.*

  /** Where the load is now. */
  def stage: F[Stage[F]] = state.get.map(_.stage)

  /** The stage now, then each change of it: for a live view. */
  def stages: Stream[F, Stage[F]] =
    state.discrete.map(_.stage).changes(using Eq.fromUniversalEquals)

  /** Why the load was stopped (the first reason given); `None` while no stop was asked. */
  def why: F[Option[Ending]] = state.get.map(_.stop.map(_.why))

  /** A graceful stop for `why` (see [[LoadControl]]). Idempotent; the first reason wins. */
  def stop(why: Ending): F[Unit] = on(_.stopping(why, now = false))

  /** A stop for `why` that cuts the requests in flight off now. Idempotent. */
  def stopNow(why: Ending): F[Unit] = on(_.stopping(why, now = true))

  /** Runs `warmUp` as the load's warm-up: the stage says so meanwhile. A stop asked before it
    * begins skips it, and one asked while it runs cancels it; either way the result is `None`.
    */
  def warming[A](warmUp: F[A]): F[Option[A]] =
    val enter = state.modify { s =>
      if s.stop.isDefined then (s, false) else (s.copy(stage = Stage.Before(warming = true)), true)
    }
    val leave = state.update(_.copy(stage = Stage.Before(warming = false)))
    val stopped = state.waitUntil(_.stop.isDefined)
    F.uncancelable { poll =>
      enter.flatMap { go =>
        if go then poll(F.race(stopped, warmUp)).map(_.toOption).guarantee(leave)
        else F.pure(None)
      }
    }

  /** Whether the load is to launch its requests: false once a stop has been asked. */
  def launching: F[Boolean] = state.get.map(_.stop.isEmpty)

  /** The load's run has started at `start`: from now on stops are told to `run` (and the stop asked
    * so far, if any, now).
    */
  def running(run: Run[F], start: FiniteDuration): F[Unit] = on(_.running(run, start))

  // One transition and what it owes the run, as one step.
  private def on(move: State[F] => (State[F], Option[F[Unit]])): F[Unit] =
    F.uncancelable(_ => state.modify(move).flatMap(_.sequence_))

private[http] object LoadControl:

  /** Where a load is. */
  enum Stage[F[_]]:
    /** Its run has not started: the client warms up (`warming`), or nothing runs yet. */
    case Before(warming: Boolean)

    /** Its run, started at `start` (on `F.monotonic`, after the warm-up): the load's clock. */
    case Running(run: Run[F], start: FiniteDuration)

  /** The stop asked of a load: the first reason given, and `now` once a stop-now came. */
  final case class Stop(why: Ending, now: Boolean)

  /** A load's stage and the stop asked of it; its moves are pure, each with what it owes the run.
    */
  final case class State[F[_]](stage: Stage[F], stop: Option[Stop]):

    /** A stop for `why` (`now`: without grace): kept (the first reason wins), and told to the run
      * if there is one.
      */
    def stopping(why: Ending, now: Boolean): (State[F], Option[F[Unit]]) =
      val kept = stop.fold(Stop(why, now))(s => s.copy(now = s.now || now))
      val told = stage match
        case Stage.Running(run, _) => Some(if now then run.stopNow else run.stop)
        case Stage.Before(_)       => None
      (copy(stop = Some(kept)), told)

    /** The run has started: it is told the stop asked so far, if any. */
    def running(run: Run[F], start: FiniteDuration): (State[F], Option[F[Unit]]) =
      (
        copy(stage = Stage.Running(run, start)),
        stop.map(s => if s.now then run.stopNow else run.stop)
      )

  /** A load not begun, with no stop asked. */
  def create[F[_]: Concurrent]: F[LoadControl[F]] =
    SignallingRef
      .of[F, State[F]](State(Stage.Before(warming = false), None))
      .map(new LoadControl[F](_))
