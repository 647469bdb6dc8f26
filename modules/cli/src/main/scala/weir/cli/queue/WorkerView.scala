package weir.cli.queue

import cats.effect.{IO, Resource}
import weir.Durations
import weir.cli.common.StatusLine
import weir.postgres.queue.Worker

/** The live progress of `weir worker` on stderr: jobs done and their rate, in flight, failed
  * attempts, late writes refused, connections lost, latency, and with several queues the jobs
  * claimed from each. On a terminal the line is redrawn every second; otherwise a plain line every
  * five seconds (the run's tick, [[WorkerCommand]]). Reads one place: the worker's
  * [[Worker.progress]], sampled on the run's tick.
  */
object WorkerView:

  def resource(worker: Worker[IO], plan: WorkerPlan): Resource[IO, Unit] =
    val lines = worker.progress.map { case Worker.Progress(s, c, lost) =>
      val w = c.written
      val claimed = WorkerRender.byQueue(plan, c).fold("")(q => s"  claimed $q")
      f"worker: ${w.completed}%,d done  ${s.ratePerSecond}%,.0f jobs/s  ${s.inFlight}%,d in flight  ${w.retried}%,d retried  ${w.discarded}%,d discarded  ${w.rejected}%,d late  $lost%,d reconnects  p50 ${Durations.show(s.recentLatency.p50)} p99 ${Durations.show(s.recentLatency.p99)}$claimed"
    }
    StatusLine.resource(lines, plan.live)
