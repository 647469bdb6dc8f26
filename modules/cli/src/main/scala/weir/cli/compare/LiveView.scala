package weir.cli.compare

import cats.effect.{IO, Ref, Resource}
import cats.syntax.all.*
import scala.concurrent.duration.*
import weir.engine.Snapshot
import weir.strategy.Strategy
import weir.cli.common.Console
import weir.cli.common.RuntimeSyntax.label
import weir.lab.compare.{ComparePlan, CompareRunner, Lane}
import weir.lab.run.Outcome
import weir.lab.workload.Scenario

/** The live view of `weir compare`, on stderr: a lane per run with the seed's `P` (a batch taken)
  * and `C` (15 tasks ended) events, the elapsed time, and the plan's progress.
  *
  * It reads the engine's statistics only: every snapshot the runner samples ([[sampled]]) extends
  * the current run's [[Lane]], which keeps the latest events that fit the terminal and nothing
  * more. On a terminal the lane is redrawn in place ten times a second; otherwise (or with
  * `--no-live`) one plain line is printed per finished run. Colour only on a terminal and never
  * with NO_COLOR set.
  */
final class LiveView private (
    plan: ComparePlan,
    redraw: Boolean,
    current: Ref[IO, Option[LiveView.Current]],
    done: Ref[IO, Int]
) extends CompareRunner.Listener:

  def started(scenario: Scenario, strategy: Strategy, repetition: Int): IO[Unit] =
    val header =
      if strategy == plan.strategies.head && repetition == 0 then
        Console.error(s"\n${scenario.name}  (${CompareRender.describe(scenario, plan)})")
      else IO.unit
    header >> current.set(
      Some(LiveView.Current(strategy, repetition, Lane.empty(LiveView.laneWidth), Duration.Zero))
    )

  def sampled(snapshot: Snapshot): IO[Unit] =
    current.update(_.map(c => c.copy(lane = c.lane.next(snapshot), elapsed = snapshot.elapsed)))

  def finished(
      scenario: Scenario,
      strategy: Strategy,
      repetition: Int,
      outcome: Outcome
  ): IO[Unit] =
    current.getAndSet(None).flatMap {
      case Some(run) =>
        done.updateAndGet(_ + 1).flatMap { n =>
          val status = s"${outcome.describe}  [$n/${plan.runs}]"
          Console.error((if redraw then "\r\u001b[2K" else "") + line(run, status))
        }
      case None => IO.unit
    }

  private def line(run: LiveView.Current, status: String): String =
    val rep = if plan.repetitions > 1 then s" #${run.repetition + 1}" else ""
    val events = run.lane.shown
    val painted =
      if Console.colour then
        events.replace("P", "\u001b[33mP\u001b[0m").replace("C", "\u001b[36mC\u001b[0m")
      else events
    val label = f"  ${run.strategy.name + rep}%-28s"
    s"$label $painted${" " * (LiveView.laneWidth - events.length)}  $status"

  private def tick: IO[Unit] =
    (IO.sleep(100.millis) >> current.get.flatMap {
      case Some(run) =>
        val elapsed = f"${run.elapsed.toMillis / 1000.0}%.1f s"
        IO.blocking(System.err.print("\r\u001b[2K" + line(run, elapsed)))
      case None => IO.unit
    }).foreverM

object LiveView:
  /** The seed's terminal was 80 columns: 10 P's and about 67 C's a run. Narrower terminals get the
    * latest events that fit beside the label and the time, so a redrawn line never wraps.
    */
  val laneWidth: Int = Console.columns.fold(80)(cols => (cols - 50).max(10).min(80))

  /** The run being drawn: its lane so far and the elapsed time of its latest snapshot. */
  private final case class Current(
      strategy: Strategy,
      repetition: Int,
      lane: Lane,
      elapsed: FiniteDuration
  )

  /** A view that draws while in use; `enabled = false` prints only the finished lines. */
  def resource(plan: ComparePlan, enabled: Boolean): Resource[IO, LiveView] =
    val redraw = enabled && Console.interactive
    for
      current <- Resource.eval(Ref.of[IO, Option[Current]](None))
      done <- Resource.eval(Ref.of[IO, Int](0))
      view = new LiveView(plan, redraw, current, done)
      _ <- Resource.eval(
        Console.error(
          s"weir compare: ${plan.runs} runs on ${plan.runtime.label}, scale ${plan.scale}, about ${plan.estimate.toSeconds} s"
        )
      )
      _ <- if redraw then view.tick.background.void else Resource.unit[IO]
    yield view
