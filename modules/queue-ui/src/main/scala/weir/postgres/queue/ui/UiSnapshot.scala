package weir.postgres.queue.ui

import cats.effect.{Async, Deferred, Ref}
import cats.syntax.all.*
import java.time.Instant
import scala.concurrent.duration.FiniteDuration

/** One value read by `load` and shared by every request: the overview's counts, so that any number
  * of dashboards left open cost the database one overview a `fresh` period at most.
  *
  *   - A value younger than `fresh` is answered as it is.
  *   - One younger than `stale` is answered at once too, and a new `load` is started beside it if
  *     none is running: a page polled every few seconds shows counts one poll old, never waits.
  *   - Otherwise (none yet, too old, or [[invalidate]]d) the request waits for a `load`: the one
  *     running, or a new one.
  *
  * '''Concurrency.''' Any number of fibers may call [[get]] and [[invalidate]]; at most one `load`
  * of the current generation runs at a time, in a fiber of its own, so a request cancelled while it
  * waits stops no one else's load. '''Errors.''' A failed `load` is raised to the requests waiting
  * for it and stores nothing (the next request tries again). [[invalidate]] (after an action) makes
  * the next request wait for a `load` started after it: a `load` already running then is not
  * stored.
  */
private[ui] final class UiSnapshot[F[_], A] private (
    load: F[A],
    fresh: FiniteDuration,
    stale: FiniteDuration,
    state: Ref[F, UiSnapshot.State[F, A]]
)(using F: Async[F]):
  import UiSnapshot.*

  /** The value and when its `load` started (what the page says it counted at). */
  def get: F[(A, Instant)] =
    (F.monotonic, Deferred[F, Either[Throwable, (A, Instant)]]).flatMapN { (now, mine) =>
      state.modify { s =>
        val age = s.last.map(l => now - l.at)
        val running = s.loading.filter(_._1 == s.generation).map(_._2)
        val started = if running.isDefined then s else s.copy(loading = Some(s.generation -> mine))
        val refresh = if running.isDefined then F.unit else run(s.generation, mine)
        (s.last, age) match
          case (Some(l), Some(a)) if a < fresh => (s, F.pure((l.value, l.wall)))
          case (Some(l), Some(a)) if a < stale => (started, refresh.as((l.value, l.wall)))
          case _ => (started, refresh >> running.getOrElse(mine).get.rethrow)
      }.flatten
    }

  /** Forgets the value: the next [[get]] waits for a new `load`. */
  def invalidate: F[Unit] =
    state.update(s => s.copy(last = None, generation = s.generation + 1, loading = None))

  // A load of `generation` in a fiber of its own, stored only if no invalidate came meanwhile.
  private def run(generation: Long, done: Deferred[F, Either[Throwable, (A, Instant)]]): F[Unit] =
    val loaded = (F.monotonic, F.realTimeInstant).flatMapN { (at, wall) =>
      load.attempt.flatMap { result =>
        val stored = state.update { s =>
          val ours = s.generation == generation
          s.copy(
            last = result.toOption.filter(_ => ours).map(Loaded(_, at, wall)).orElse(s.last),
            loading = if ours then None else s.loading
          )
        }
        stored >> done.complete(result.map(_ -> wall)).void
      }
    }
    F.start(F.uncancelable(_ => loaded)).void

private[ui] object UiSnapshot:

  private final case class Loaded[A](value: A, at: FiniteDuration, wall: Instant)

  private final case class State[F[_], A](
      last: Option[Loaded[A]],
      loading: Option[(Long, Deferred[F, Either[Throwable, (A, Instant)]])],
      generation: Long
  )

  /** A snapshot of `load`, empty until its first [[UiSnapshot.get]]. */
  def apply[F[_]: Async, A](
      load: F[A],
      fresh: FiniteDuration,
      stale: FiniteDuration
  ): F[UiSnapshot[F, A]] =
    Ref.of[F, State[F, A]](State(None, None, 0L)).map(new UiSnapshot(load, fresh, stale, _))
